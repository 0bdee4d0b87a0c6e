def countdown(n):
    while n > 0:
        print(n)
        n -= 1
    print('Liftoff!')

countdown(3)
