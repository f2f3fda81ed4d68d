"""Exact scale conversion between fractions and percentages, in decimal, keeping the source's
digits (docs/convert.md, the **Scale.** paragraph)."""

from __future__ import annotations

from decimal import Decimal

from bot.convert.model import Scale

_HUNDRED = Decimal(100)
#: the largest value of each scale (both start at 0)
SCALE_TOP: dict[Scale, int] = {"fraction": 1, "percent": 100}


class Scaled(float):
    """A float that remembers the exact decimal it stands for (`text`, for writers)."""

    text: str

    def __new__(cls, exact: Decimal) -> Scaled:
        value = super().__new__(cls, exact)
        text = format(exact.normalize(), "f")
        value.text = text if "." in text else f"{text}.0"
        return value


def exact_decimal(value: float | int) -> Decimal:
    """The decimal a JSON or YAML reader wrote `value` from (shortest round-trip text)."""
    if isinstance(value, Scaled):
        return Decimal(value.text)
    return Decimal(repr(value)) if isinstance(value, float) else Decimal(value)


def rescale(value: float | int, source: Scale, target: Scale) -> float | int:
    """`value` from the `source` scale to the `target` one, exact in decimal terms."""
    if source == target:
        return value
    decimal = exact_decimal(value)
    return Scaled(decimal * _HUNDRED if target == "percent" else decimal / _HUNDRED)
