print("prompteval"[::-1])
