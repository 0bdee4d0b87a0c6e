def binary_search(values, target):
    lo, hi = 0, len(values) - 1
    while lo <= hi:
        mid = (lo + hi) // 2
        if values[mid] == target:
            return mid
        elif values[mid] < target:
            lo = mid + 1
        else:
            hi = mid - 1
    return -1

values = [1, 3, 5, 7, 9, 11]
print(binary_search(values, 11))
print(binary_search(values, 1))
print(binary_search(values, 4))
