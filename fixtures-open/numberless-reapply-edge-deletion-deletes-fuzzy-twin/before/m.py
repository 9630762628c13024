def a():
    x = compute()
    return x

def b():
    x = compute()
    Debug_print(x);
    return x
