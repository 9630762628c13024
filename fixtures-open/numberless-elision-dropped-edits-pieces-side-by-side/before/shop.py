def render(items):
    total = 0
    for item in items:
        total += item.price
    return total


def summary(items):
    total = 0
    print("summary")
    log("summary")
    for item in items:
        total += item.price
    return total
