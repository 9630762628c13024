def first(items):
    for item in items:
        if item.valid:
            total += item.price
        log(item)
    return total

def second(items):
    for item in items:
            total += item.price
        log(item)
    return total
