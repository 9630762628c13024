import os


def main():
    pass


def extra():
    return 1

