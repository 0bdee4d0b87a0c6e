def is_palindrome(text):
    cleaned = [c.lower() for c in text if c.isalnum()]
    return cleaned == cleaned[::-1]

print(is_palindrome('A man, a plan, a canal: Panama'))
print(is_palindrome('hello'))
