def handler(event):
    retries = 0
    payload = event.body
    log.debug(payload)
    validate(payload)
    log.debug(payload)
    return payload
