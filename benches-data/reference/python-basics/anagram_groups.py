words = ["eat", "tea", "tan", "ate", "nat", "bat"]
groups = {}
for word in words:
    groups.setdefault("".join(sorted(word)), []).append(word)
for group in sorted(sorted(g) for g in groups.values()):
    print(" ".join(group))
