"""Who a token belongs to, as the Hub says (`GET /api/whoami-v2`), and the one rule for
comparing Hub names.

The workers ask once at start-up (`workers.startup`): the account the Hub names is the one
whose comments are the bot's own, so a mistyped `EVALBOT_BOT_NAME` can no longer make the bot
miss its report and post another on every push (docs/operating.md, "Start-up checks"). The
answer is typed here so other callers (an issuer service checking a token's scopes) read the
same fields the same way.

The endpoint is strictly rate-limited by the Hub: call it once per process, not
per event. Requests go through huggingface_hub's shared client, so `EVALBOT_HUB_TIMEOUT`
(`bot.hub.client.use_hub_timeout`) bounds it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from huggingface_hub import HfApi

from bot.hub.client import hub_errors
from bot.hub.errors import HubPermanentError
from bot.hub.names import same_hub_name

__all__ = ["HubIdentity", "TokenScope", "identity_from_whoami", "same_hub_name", "whoami"]


@dataclass(frozen=True, slots=True)
class TokenScope:
    """One entry of a fine-grained token's `scoped` list: what it may do on which entity."""

    entity_type: str  # "user", "org", "model", "dataset", "space"
    entity_name: str
    permissions: tuple[str, ...]  # e.g. "repo.content.read", "discussion.write"


@dataclass(frozen=True, slots=True)
class HubIdentity:
    """The account behind a token, and what the token is (as `whoami-v2` reports them)."""

    name: str  # the Hub's own spelling of the account name
    type: str  # "user", "org" or "app"
    id: str | None
    orgs: tuple[str, ...]
    #: "read", "write" or "fineGrained"; None when the token is not an access token.
    token_role: str | None
    token_name: str | None
    #: A fine-grained token's scoped permissions (empty for read and write tokens).
    scopes: tuple[TokenScope, ...] = ()
    #: A fine-grained token's permissions that hold everywhere (`fineGrained.global`).
    global_permissions: tuple[str, ...] = ()

    def is_named(self, name: str) -> bool:
        return same_hub_name(self.name, name)


def identity_from_whoami(data: Mapping[str, Any]) -> HubIdentity:
    """Parse a `whoami-v2` answer; ValueError when it names no account."""
    name = data.get("name")
    if not isinstance(name, str) or not name:
        raise ValueError("the Hub's whoami answer names no account")
    orgs = tuple(
        org["name"]
        for org in _list(data.get("orgs"))
        if isinstance(org, Mapping) and isinstance(org.get("name"), str)
    )
    auth = _mapping(data.get("auth"))
    token = _mapping(auth.get("accessToken"))
    fine = _mapping(token.get("fineGrained"))
    scopes = tuple(
        TokenScope(
            entity_type=str(_mapping(scope.get("entity")).get("type", "")),
            entity_name=str(_mapping(scope.get("entity")).get("name", "")),
            permissions=tuple(str(p) for p in _list(scope.get("permissions"))),
        )
        for scope in _list(fine.get("scoped"))
        if isinstance(scope, Mapping)
    )
    return HubIdentity(
        name=name,
        type=str(data.get("type") or "user"),
        id=data.get("id") if isinstance(data.get("id"), str) else None,
        orgs=orgs,
        token_role=token.get("role") if isinstance(token.get("role"), str) else None,
        token_name=token.get("displayName") if isinstance(token.get("displayName"), str) else None,
        scopes=scopes,
        global_permissions=tuple(str(p) for p in _list(fine.get("global"))),
    )


def whoami(api: HfApi) -> HubIdentity:
    """One `GET /api/whoami-v2` with `api`'s token. Raises `HubPermanentError` (status 401)
    for a token the Hub refuses, `HubTransientError` when the Hub cannot answer now."""
    with hub_errors():
        data = api.whoami()
    try:
        return identity_from_whoami(data)
    except ValueError as error:
        raise HubPermanentError(str(error)) from error


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}
