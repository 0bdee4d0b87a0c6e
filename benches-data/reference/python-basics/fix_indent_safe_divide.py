def safe_divide(a, b):
    try:
        return a // b
    except ZeroDivisionError:
        return None

print(safe_divide(17, 5))
print(safe_divide(1, 0))
