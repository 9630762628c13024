class A:
    def total(self):
        return self.x


class B:
    def total(self):
        self.refresh()
        return self.x
