class Second:
    def run(self):
        self.count = 1
        return self.count

class Third:
    def run(self):
        self.count = 0
        return self.count
