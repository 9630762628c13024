class A:
    def run(self):
        return 1


class B:
    def legacy(self):  
        return old_api()

    def run(self):
        return 2
