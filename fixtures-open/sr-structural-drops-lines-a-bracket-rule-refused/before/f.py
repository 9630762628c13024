def f():
    if ok:
        run()
    }
class B:
    }
    x = 1
