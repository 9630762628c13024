def first(items):
    total = 0
    for item in items:
        total += item.price
    return total

def second(items):
    total = 0
    for item in items:
        total += item.price
    return total