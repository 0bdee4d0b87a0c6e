for i in range(1, 4):
    row = []
    for j in range(1, 4):
        row.append(str(i * j))
    print(' '.join(row))
