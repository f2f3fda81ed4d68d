"""Exact scale conversion between fractions (0-1) and percentages (0-100).

`0.29 * 100` is `28.999999999999996` in binary floating point, so multiplying the float would
publish a value that differs from the source's in its last digits. The source's value is read
as the decimal its JSON text denotes (`repr` of a float is the shortest text that reads back
as that float), scaled in decimal, and turned back into the float nearest to the exact result:
`0.29` becomes `29.0`, `0.0004` becomes `0.04`. Without scaling the source's value is kept.
"""

from __future__ import annotations

from decimal import Decimal

from bot.convert.model import Scale

_HUNDRED = Decimal(100)


def exact_decimal(value: float | int) -> Decimal:
    """The decimal a JSON or YAML reader wrote `value` from (shortest round-trip text)."""
    return Decimal(repr(value)) if isinstance(value, float) else Decimal(value)


def rescale(value: float | int, source: Scale, target: Scale) -> float | int:
    """`value` from the `source` scale to the `target` one, exact in decimal terms."""
    if source == target:
        return value
    decimal = exact_decimal(value)
    scaled = decimal * _HUNDRED if target == "percent" else decimal / _HUNDRED
    return float(scaled)
