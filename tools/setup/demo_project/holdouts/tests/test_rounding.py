from shop.cart import total


def test_discounted_total_rounds_half_up_to_the_cent():
    assert total([1001], 30) == 701
    assert total([5], 50) == 3
