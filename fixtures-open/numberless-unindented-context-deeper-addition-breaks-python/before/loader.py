def load(path):
    data = read(path)
    check(data)
    return data
