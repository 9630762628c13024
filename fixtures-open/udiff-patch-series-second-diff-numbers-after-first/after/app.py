import os
import mod0
import mod1
import mod2
import mod3
import mod4
import mod5
import mod6
import mod7
import mod8
import mod9

def handler_a(event):
    payload = decode(event)
    validate(payload)
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

