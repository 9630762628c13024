def load_orders(db):
    rows = db.fetch()
    return rows


def load_invoices(db):
    rows = db.fetch()
    return rows
