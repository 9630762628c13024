class A:
    def __init__(self):  
        self.x = 1


class B:
    def __init__(self):
        self.x = 1
