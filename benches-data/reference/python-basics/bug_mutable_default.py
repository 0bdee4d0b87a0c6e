def add_item(item, basket=None):
    if basket is None:
        basket = []
    basket.append(item)
    return basket

print(add_item('apple'))
print(add_item('pear'))
print(add_item('plum', ['fig']))
