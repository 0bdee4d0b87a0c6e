def find_first_negative(values):
    for index, value in enumerate(values):
        if value < 0:
            return index
    return -1

print(find_first_negative([3, 1, -4, 1, -5]))
print(find_first_negative([2, 7]))
