"""A tiny shopping cart: prices in cents, a percentage discount on the total."""


def total(prices: list[int], discount_percent: int = 0) -> int:
    """The cart total in cents after the discount."""
    if not 0 <= discount_percent <= 100:
        raise ValueError("discount must be between 0 and 100")
    gross = sum(prices)
    return int(gross * (100 - discount_percent) / 100)
