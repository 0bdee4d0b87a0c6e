def calculate_average(numbers):
    if not numbers:
        return 0
    total = 0
    for num in numbers:
        total += num
    average = total / len(numbers)
    return average


print(calculate_average([]))
