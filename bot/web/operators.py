"""`operators:` of `config/bot.yaml`: the Hub users, and the members of Hub orgs, who may sign in
to the status page's operator view with "Sign in with Hugging Face".

Each entry is pinned by the account's immutable id (the OpenID `sub` the Hub signs: a user's or
an org's 24-hex id, shown by `GET /api/users/<name>/overview` and `/api/organizations/<name>/
overview`); the name beside it is for people reading the file and for the audit log. A name
alone would follow the account if it were deleted and the name registered again by someone
else. The workers ignore this key; `evalbot web` reads it at start and stops on a problem,
naming the file, the line and the fix.

    operators:
      users:
        - {name: alice, id: 6560b0f7e0d5d2c4a1b2c3d4}
      orgs:
        - {name: acme-labs, id: 6560b0f7e0d5d2c4a1b2c3d5}
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from bot.configfiles import ConfigDocument, read_config

FIX = 'see docs/web.md, "Operators"'
_HUB_ID = re.compile(r"[0-9a-f]{24}")


@dataclass(frozen=True, slots=True)
class Operators:
    """Allowed user ids and org ids, each mapped to the name the file gives it."""

    users: dict[str, str] = field(default_factory=dict)
    orgs: dict[str, str] = field(default_factory=dict)

    def __bool__(self) -> bool:
        return bool(self.users or self.orgs)

    def allows(self, via: str) -> bool:
        """Whether the user or org id a session was granted through is still listed."""
        return via in self.users or via in self.orgs


def load_operators(path: Path) -> Operators:
    """The allow-list of `path` (a missing file or key: nobody); `ConfigError` on a problem."""
    if not path.exists():
        return Operators()
    document = read_config(path, fix=FIX)
    data = document.data if isinstance(document.data, dict) else {}
    raw = data.get("operators")
    if raw is None:
        return Operators()
    if not isinstance(raw, dict) or not set(raw) <= {"users", "orgs"}:
        raise document.error("operators", "`operators` must be a mapping with `users` and `orgs`")
    return Operators(_entries(document, raw, "users"), _entries(document, raw, "orgs"))


def _entries(document: ConfigDocument, raw: dict[str, object], kind: str) -> dict[str, str]:
    entries = raw.get(kind) or []
    where = f"operators.{kind}"
    if not isinstance(entries, list):
        raise document.error(where, f"`{where}` must be a list of {{name, id}} entries")
    found: dict[str, str] = {}
    for index, entry in enumerate(entries):
        at = f"{where}[{index}]"
        if not (isinstance(entry, dict) and set(entry) == {"name", "id"}):
            raise document.error(at, f"`{at}` must be `{{name: <hub name>, id: <24-hex id>}}`")
        name, hub_id = entry["name"], entry["id"]
        if not isinstance(hub_id, str) or not _HUB_ID.fullmatch(hub_id):
            raise document.error(
                f"{at}.id",
                f"`{at}.id` must be the account's 24-hex Hub id, got {hub_id!r}",
                f"read it from the Hub: GET /api/{'users' if kind == 'users' else 'organizations'}"
                f"/{name}/overview, field `_id`",
            )
        if not isinstance(name, str) or not name.strip():
            raise document.error(f"{at}.name", f"`{at}.name` must be the account's Hub name")
        found[hub_id] = name.strip()
    return found
