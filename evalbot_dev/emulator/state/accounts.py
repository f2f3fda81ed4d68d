"""Users, organisations and tokens: who may call the emulated Hub, and as whom."""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping
from typing import Literal

from evalbot_dev.emulator import hub_texts
from evalbot_dev.emulator.errors import HubError
from evalbot_dev.emulator.model import (
    ROLE_PERMISSIONS,
    Account,
    Token,
)
from evalbot_dev.emulator.state.base import (
    StateBase,
)


class Accounts(StateBase):
    """Users, organisations and tokens: who may call the emulated Hub, and as whom."""

    def add_user(
        self, name: str, *, fullname: str | None = None, email: str | None = None
    ) -> Account:
        with self.lock:
            account = Account(self.ids.new(), name, "user", fullname or name, email)
            self.accounts[name] = account
            return account

    def add_org(self, name: str, members: Mapping[str, str] | None = None) -> Account:
        """An org; `members` maps user name -> role (read, contributor, write, admin)."""
        with self.lock:
            account = Account(self.ids.new(), name, "org", name)
            self.accounts[name] = account
            self.members[name] = dict(members or {})
            return account

    def add_token(
        self,
        value: str,
        user: str,
        role: Literal["read", "write", "fineGrained"] = "write",
        permissions: Iterable[str] | None = None,
        display_name: str | None = None,
    ) -> Token:
        granted = frozenset(permissions or ()) if role == "fineGrained" else ROLE_PERMISSIONS[role]
        token = Token(value, user, role, granted, display_name or f"{user}-{role}")
        with self.lock:
            if user not in self.accounts or self.accounts[user].kind != "user":
                raise ValueError(f"token for unknown user {user!r}")
            self.tokens[value] = token
        return token

    def authenticate(self, authorization: str | None) -> Token | None:
        """The token behind `authorization: Bearer ...`: None when absent, 401 when unknown
        or expired (a Trusted Publishers token lives an hour)."""
        if not authorization:
            return None
        scheme, _, value = authorization.partition(" ")
        token = self.tokens.get(value.strip()) if scheme.lower() == "bearer" else None
        if token is None or (token.expires_at is not None and time.time() >= token.expires_at):
            raise HubError(401, hub_texts.INVALID_CREDENTIALS)
        return token

    def account(self, name: str) -> Account:
        return self.accounts[name]

    def ensure_namespace(self, name: str) -> Account:
        """The account owning `name`, created as an empty org when seeding mentions a new one."""
        with self.lock:
            return self.accounts.get(name) or self.add_org(name)
