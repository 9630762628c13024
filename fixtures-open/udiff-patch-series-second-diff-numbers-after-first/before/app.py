import os

def handler_a(event):
    payload = decode(event)
    store(payload)
    return ok()

# spacer 0
# spacer 1
# spacer 2
# spacer 3
# spacer 4
def handler_b(event):
    payload = decode(event)
    store(payload)
    return ok()

