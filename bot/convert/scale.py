"""Exact scale conversion between fractions (0-1) and percentages (0-100).

`0.29 * 100` is `28.999999999999996` in binary floating point, so multiplying the float would
publish a value that differs from the source's in its last digits. The source's value is read
as the decimal its JSON text denotes (`repr` of a float is the shortest text that reads back
as that float) and scaled in decimal: `0.29` becomes `29.0`, `0.8885298869143781` becomes
`88.85298869143781`. The result is a `Scaled` float: the nearest double to the exact product
(what any reader of the number gets), which also keeps the exact decimal text, so the YAML
evalbot writes shows the digits of the source (`bot.convert.yamlio`): the nearest double's
shortest text can differ in the last digit (`88.85298869143782`). Without scaling the source's
value is kept as it is.
"""

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
