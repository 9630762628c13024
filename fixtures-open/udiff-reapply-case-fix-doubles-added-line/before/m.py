def f():
    # compute the value
    return_val = 1
    print(return_val)
    return Return_val
