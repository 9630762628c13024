class A:
    def run(self):
        prepare()
        return compute(1)


class B:
    def run(self):
        prepare()
        cleanup()
        return compute(1)


class C:
    def run(self):
        prepare()
        return compute(1)
