"""A tiny shopping cart: prices in cents, a percentage discount on the total."""

from decimal import ROUND_HALF_UP, Decimal


def total(prices: list[int], discount_percent: int = 0) -> int:
    """The cart total in cents after the discount, rounded half up to the cent."""
    if not 0 <= discount_percent <= 100:
        raise ValueError("discount must be between 0 and 100")
    gross = Decimal(sum(prices))
    net = gross * (100 - discount_percent) / 100
    return int(net.quantize(Decimal(1), rounding=ROUND_HALF_UP))
