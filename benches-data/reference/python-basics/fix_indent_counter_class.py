class Counter:
    def __init__(self):
        self.count = 0

    def increment(self, step=1):
        self.count += step
        return self.count

counter = Counter()
counter.increment()
counter.increment(5)
print(counter.count)
print(counter.increment(10))
