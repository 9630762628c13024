def first(items):
    for item in items:
        if item.valid:
            total += item.price
        log(item)
    save(total)
    return total

def second(items):
    for item in items:
        if item.valid:
            audit(item)
            total += item.price
        log(item)
    save(total)
    return total
