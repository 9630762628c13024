def save_user(user):
    db.commit()


def save_users(users):
    for user in users:
        db.commit()
