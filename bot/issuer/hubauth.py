"""Callers that present a Hugging Face access token: who it belongs to, per `whoami-v2`.

The Hub is asked behind a small Protocol (`WhoAmI`), so units use a recorded fake and the
issuer the real `bot.hub.identity.whoami`. A token must be able to do what the integration
requires (`hub_scopes`, default `repo.write`): a `write` token can; a `fineGrained` one only
when its scope on the caller's own account grants every required permission; a `read` token
never. A Hub that cannot be asked is `Unavailable` (503); a token it rejects is refused.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from bot.hub.errors import HubError, HubPermanentError
from bot.hub.identity import HubIdentity
from bot.issuer.identity import Identity
from bot.issuer.refusals import Refusal, Unauthenticated, Unavailable


class WhoAmI(Protocol):
    def __call__(self, token: str) -> HubIdentity:
        """The token's owner and permissions; raises `HubError` when the Hub says no or fails."""


@dataclass
class HubTokenAuthenticator:
    whoami: WhoAmI
    #: The permissions a token of `user` must carry (from the user's integration).
    required_scopes: Callable[[str], tuple[str, ...]]

    def authenticate(self, token: str) -> Identity:
        try:
            found = self.whoami(token)
        except HubPermanentError as error:
            if error.status in (401, 403):
                raise Unauthenticated("hub-token-rejected") from error
            raise Unavailable("hub-whoami-failed") from error
        except (HubError, ValueError) as error:
            raise Unavailable("hub-whoami-failed") from error
        if found.type != "user":
            raise Refusal("hub-token-not-a-user")
        if not self._allowed(found):
            raise Refusal("hub-token-scope-missing")
        return Identity(kind="hub", name=found.name)

    def _allowed(self, found: HubIdentity) -> bool:
        if found.role == "write":
            return True
        if found.role != "fineGrained":
            return False
        granted = set(found.permissions_on(f"user:{found.name}"))
        return set(self.required_scopes(found.name)) <= granted
