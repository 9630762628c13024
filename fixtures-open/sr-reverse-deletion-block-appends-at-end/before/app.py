def main():
    run()


def run():
    pass
