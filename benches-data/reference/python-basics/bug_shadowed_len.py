def average_length(words):
    total = 0
    for word in words:
        total += len(word)
    return total // len(words)

print(average_length(['alpha', 'be', 'gamma']))
