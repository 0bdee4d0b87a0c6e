def sum_evens(values):
    total = 0
    for v in values:
        if v % 2 == 0:
            total += v
    return total

print(sum_evens([1, 2, 3, 4, 5, 6]))
