"""The one rule for comparing Hub account names: case-insensitively, as the Hub does.

`Evalbot` and `evalbot` are one account on the Hub (it refuses to create a name that differs
from an existing one only by case). Every comparison of names the bot makes goes through
`same_hub_name`: its own comments (`bot.hub.pulls`, the workers), the maintainers' allow-list,
`@name` commands (`bot.contract.events`) and the token's owner at start-up (`bot.hub.identity`).
It lives in the pure core, which every layer may import, so the receiver-worker contract and
the Hub layer share this one definition without the contract importing `bot.hub`.
"""

from __future__ import annotations


def same_hub_name(left: str, right: str) -> bool:
    """Whether two Hub user or org names name the same account."""
    return left.casefold() == right.casefold()
