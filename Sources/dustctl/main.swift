print("dustctl")
