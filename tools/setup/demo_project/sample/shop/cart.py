"""A tiny shopping cart: prices in cents, a percentage discount on the total."""


def total(prices: list[int], discount_percent: int = 0) -> int:
    """The cart total in cents after the discount."""
    raise NotImplementedError
