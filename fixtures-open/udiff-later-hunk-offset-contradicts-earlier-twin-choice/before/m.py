def alpha():
    result = compute()
    return result

def beta():
    result = compute()
    return result

def gamma():
    value = 42
    return value
