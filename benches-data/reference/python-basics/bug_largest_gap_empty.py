def largest_gap(values):
    if len(values) < 2:
        return 0
    ordered = sorted(values)
    return max(b - a for a, b in zip(ordered, ordered[1:]))

print(largest_gap([5, 1, 9]))
print(largest_gap([42]))
print(largest_gap([]))
