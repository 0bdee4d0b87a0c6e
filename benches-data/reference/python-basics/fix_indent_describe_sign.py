def describe(n):
    if n < 0:
        return 'negative'
    elif n == 0:
        return 'zero'
    return 'positive'

for n in [-5, 0, 7]:
    print(describe(n))
