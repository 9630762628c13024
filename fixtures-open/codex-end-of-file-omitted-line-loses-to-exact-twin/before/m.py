class C:
    def run(self):
        prepare(self.items)
        return compute(1)


class B:
    def run(self):
        prepare(self.items)
        cleanup()
        return compute(1)
