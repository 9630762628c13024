def first(self, items):
    total = 0
    for item in items:
        if item.valid:
            total += item.price
        log.debug(item)
    self.save(total)
    return total

def second(self, items):
    total = 0
    for item in items:
        if item.valid:
            total += item.price
    return total

