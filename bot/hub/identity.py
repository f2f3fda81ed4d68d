"""Who a Hub access token belongs to: a typed `whoami` over `HfApi.whoami`, bounded and mapped
like every other Hub call."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from bot.hub.client import hub_errors
from bot.validation.model import same_hub_name


@dataclass(frozen=True)
class HubIdentity:
    """What `whoami-v2` reports about a token and its owner.

    `role` is `read`, `write` or `fineGrained`; `scopes` maps each entity a fine-grained token
    is scoped to (`user:alice`, `org:acme`) to the permissions it grants there, and `global`
    to those it grants everywhere. `auth_type` is `auth.type`: `access_token` for a token the
    account created itself; an app's token acting for it (OAuth, "Sign in with HF") says
    otherwise, or nothing.
    """

    name: str
    type: str
    role: str | None
    orgs: tuple[str, ...] = ()
    scopes: tuple[tuple[str, tuple[str, ...]], ...] = ()
    auth_type: str | None = None

    def is_named(self, name: str) -> bool:
        """Whether `name` is this account: Hub names compare case-insensitively (the
        workers' start-up check of `EVALBOT_BOT_NAME`, `workers.startup`)."""
        return same_hub_name(self.name, name)

    def permissions_on(self, entity: str) -> tuple[str, ...]:
        return next((perms for scoped, perms in self.scopes if scoped == entity), ())


def _mapping(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def parse_whoami(payload: Any) -> HubIdentity:
    """The typed view of a `whoami-v2` answer; ValueError when it lacks a name."""
    if not isinstance(payload, dict) or not isinstance(payload.get("name"), str):
        raise ValueError("whoami-v2 answered without a name")
    auth = _mapping(payload.get("auth"))
    token = _mapping(auth.get("accessToken"))
    role = token.get("role") if isinstance(token.get("role"), str) else None
    scopes: list[tuple[str, tuple[str, ...]]] = []
    fine = _mapping(token.get("fineGrained"))
    granted_everywhere = tuple(p for p in _list(fine.get("global")) if isinstance(p, str))
    if granted_everywhere:
        scopes.append(("global", granted_everywhere))
    for scoped in _list(fine.get("scoped")):
        entity = scoped.get("entity") if isinstance(scoped, dict) else None
        perms = scoped.get("permissions") if isinstance(scoped, dict) else None
        if isinstance(entity, dict) and isinstance(perms, list):
            key = f"{entity.get('type')}:{entity.get('name')}"
            scopes.append((key, tuple(p for p in perms if isinstance(p, str))))
    orgs = tuple(
        org["name"]
        for org in _list(payload.get("orgs"))
        if isinstance(org, dict) and isinstance(org.get("name"), str)
    )
    return HubIdentity(
        name=payload["name"],
        type=str(payload.get("type", "user")),
        role=role,
        orgs=orgs,
        scopes=tuple(scopes),
        auth_type=auth.get("type") if isinstance(auth.get("type"), str) else None,
    )


def whoami(api: Any, token: str) -> HubIdentity:
    """Ask the Hub (through `api`, an `HfApi`) who `token` belongs to. Raises `HubError`."""
    with hub_errors():
        payload = api.whoami(token=token, cache=False)
    return parse_whoami(payload)
