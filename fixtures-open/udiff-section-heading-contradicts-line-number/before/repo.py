class Repo:
    def save_user(self, user):
        cur = self.conn.cursor()
        cur.execute(self.sql, user)
        self.conn.commit()
        return cur.lastrowid

    def save_order(self, order):
        cur = self.conn.cursor()
        cur.execute(self.sql, order)
        self.conn.commit()
        return cur.lastrowid
