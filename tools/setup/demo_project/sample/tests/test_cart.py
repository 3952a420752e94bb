import pytest

from shop.cart import total


def test_total_without_discount():
    assert total([500, 250, 250]) == 1000


def test_total_with_a_round_discount():
    assert total([1000], 10) == 900


def test_discount_out_of_range_is_refused():
    with pytest.raises(ValueError):
        total([100], 120)
