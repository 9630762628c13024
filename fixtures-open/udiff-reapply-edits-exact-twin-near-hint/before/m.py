def handler(req):
    data = req.json()
    value = data.get("x")
    return value


def handler(req):
    data = req.json()
    value = data["x"]
    return value
