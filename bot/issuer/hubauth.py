"""Callers presenting a Hugging Face access token, known by `whoami-v2` behind the `WhoAmI`
protocol; a token an app holds for the user is refused (docs/issuer.md, "Authentication")."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from bot.hub.errors import HubError, HubPermanentError
from bot.hub.identity import HubIdentity
from bot.issuer.identity import Identity
from bot.issuer.refusals import Refusal, Unauthenticated, Unavailable

#: `whoami-v2`'s `auth.type` for a token the account created in its settings.
ACCESS_TOKEN = "access_token"  # noqa: S105 - a kind of token, not a secret
#: How the tokens the Hub's OAuth hands to apps start, whatever `whoami-v2` says of them.
OAUTH_TOKEN_PREFIX = "hf_oauth_"  # noqa: S105 - a prefix, not a secret


class WhoAmI(Protocol):
    def __call__(self, token: str) -> HubIdentity:
        """The token's owner and permissions; raises `HubError` when the Hub says no or fails."""


@dataclass
class HubTokenAuthenticator:
    whoami: WhoAmI

    def authenticate(self, token: str) -> Identity:
        if token.startswith(OAUTH_TOKEN_PREFIX):
            raise Unauthenticated("hub-token-not-an-access-token")
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
        if found.auth_type != ACCESS_TOKEN or found.role is None:
            raise Unauthenticated("hub-token-not-an-access-token")
        return Identity(kind="hub", name=found.name)
