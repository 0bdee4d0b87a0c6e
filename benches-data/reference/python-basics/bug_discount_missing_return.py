def apply_discount(price, percent):
    discounted = price - price * percent // 100
    return discounted

def total_cost(prices, percent):
    return sum(apply_discount(p, percent) for p in prices)

print(total_cost([200, 50, 120], 10))
