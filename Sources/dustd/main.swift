print("dustd")
