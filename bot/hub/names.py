"""The one rule for comparing Hub account names: case-insensitively, as the Hub does.

`Evalbot` and `evalbot` are one account on the Hub (it refuses to create a name that differs
from an existing one only by case). Every comparison of names the bot makes goes through
`same_hub_name`: its own comments (`bot.hub.pulls`), the maintainers' allow-list, `@name`
commands (`bot.receiver.events`) and the token's owner at start-up (`bot.hub.identity`).
Kept apart from `bot.hub.identity` so the receiver can use it without importing the Hub client.
"""

from __future__ import annotations


def same_hub_name(left: str, right: str) -> bool:
    """Whether two Hub user or org names name the same account."""
    return left.casefold() == right.casefold()
