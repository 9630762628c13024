class Disk:
    def save(self, text):
        write(self.path, text)
class Cloud:

    def save(self, text):
        write(self.path, text)
