def greet(name):
    print(f'Hello, {name}!')
    if name == 'World':
        print('Welcome to Python!')
    else:
        print('Nice to meet you!')


greet('World')
