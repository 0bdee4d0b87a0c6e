def find_max(values):
    best = values[0]
    for v in values[1:]:
        if v > best:
            best = v
    return best

print(find_max([3, 9, 2, 7]))
