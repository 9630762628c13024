def count_users(db):
    rows = db.query("select id from users")
    total = len(rows) + 1
    return total

def count_admins(db):
    rows = db.query("select id from users")
    total = len(rows)
    return total
