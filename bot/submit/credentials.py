"""The CI job's identity for the issuer, found in its environment (the order:
docs/frameworks.md, "3. What `evalbot submit` does"); `HF_TOKEN` goes to it only when
`--hub-identity` names it."""

from __future__ import annotations

import base64
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

import id as ambient_id

from bot.hub.identity import HubIdentity
from bot.submit.errors import SubmitError

#: Seconds the ambient detection may take in all: `id` gives each HTTP request 30 s (and
#: retries), and runs the Buildkite and CircleCI agents with no timeout of its own.
AMBIENT_TIMEOUT_S = 60.0
#: The variable an earlier version sent as the job's Hub identity without being asked.
FORMER_HUB_IDENTITY = "EVALBOT_ISSUER_HF_TOKEN"

NO_IDENTITY = (
    "no identity for the issuer: in GitHub Actions give the job `permissions: id-token: "
    "write`; in GitLab CI declare `id_tokens: EVALBOT_ID_TOKEN: aud: <the issuer's audience>`; "
    "elsewhere set EVALBOT_CLIENT_ID and EVALBOT_CLIENT_SECRET (OAuth client credentials), or "
    "pass --hub-identity VAR naming a variable that holds a read-only Hub token registered "
    "with the issuer (HF_TOKEN, which opens the PR, is never sent to the issuer)"
)


@dataclass(frozen=True)
class Credential:
    kind: str  # "ci-oidc", "id-token", "client", "hf-token"
    value: str

    def __repr__(self) -> str:
        return f"Credential({self.kind!r}, '***')"

    @property
    def authorization(self) -> str:
        scheme = "Basic" if self.kind == "client" else "Bearer"
        return f"{scheme} {self.value}"


def ambient_credential(audience: str, timeout_s: float = AMBIENT_TIMEOUT_S) -> str | None:
    """The CI's ID token for `audience` (`id.detect_credential`), or None outside a CI `id`
    knows; `SubmitError` naming the fix when the CI is there but gives no token in time."""
    found: list[str | None] = []
    failed: list[ambient_id.IdentityError] = []

    def detect() -> None:
        try:
            found.append(ambient_id.detect_credential(audience))
        except ambient_id.IdentityError as error:
            failed.append(error)

    # a daemon thread: a CI agent that never answers cannot keep the job from ending
    worker = threading.Thread(target=detect, name="evalbot-ambient-identity", daemon=True)
    worker.start()
    worker.join(timeout_s)
    if failed:
        raise SubmitError(f"the CI gave no ID token: {str(failed[0])[:300]}; {NO_IDENTITY}")
    if not found:
        raise SubmitError(f"the CI gave no ID token within {timeout_s:g} s; {NO_IDENTITY}")
    return found[0]


def client_credentials(client_id: str, secret: str) -> str:
    """HTTP Basic credentials as RFC 6749 §2.3.1 spells them (each part form-encoded)."""
    pair = f"{quote(client_id, safe='')}:{quote(secret, safe='')}"
    return base64.b64encode(pair.encode("utf-8")).decode("ascii")


def is_read_only(found: HubIdentity) -> bool:
    """A `read` token, or a fine-grained one that grants only `*.read` permissions."""
    if found.role == "read":
        return True
    if found.role != "fineGrained":
        return False
    return all(p.endswith(".read") for _, perms in found.scopes for p in perms)


def hub_identity(
    environ: Mapping[str, str], variable: str, whoami: Callable[[str], HubIdentity]
) -> Credential:
    """The read-only Hub token in `variable`; `SubmitError` when it is missing or can write."""
    token = (environ.get(variable) or "").strip()
    if not token:
        raise SubmitError(f"--hub-identity {variable}: the variable {variable} is not set")
    found = whoami(token)
    if not is_read_only(found):
        raise SubmitError(
            f"--hub-identity {variable}: the token in {variable} can write (role "
            f"{found.role}); nothing was sent to the issuer. It needs only to know who calls: "
            "create a read token for the issuer's account and put it in another variable"
        )
    return Credential("hf-token", token)


def ci_credential(
    environ: Mapping[str, str],
    audience: Callable[[], str],
    *,
    hub_variable: str | None = None,
    whoami: Callable[[str], HubIdentity] | None = None,
    ambient: Callable[[str], str | None] = ambient_credential,
) -> Credential:
    """The job's identity for the issuer; `SubmitError` saying how to get one when it has none.

    The variables are read from `environ`; the CI's ambient identity (`ambient`) from the
    process's environment, as `id` reads it, for the audience `audience()` gives (it reads the
    issuer's metadata: asked only when no variable names an identity). `whoami` is needed with
    `hub_variable`, to check the token is read-only before it is sent."""
    variable = hub_variable
    if variable:
        if whoami is None:
            raise SubmitError("a Hub identity needs the Hub to check the token (no whoami)")
        return hub_identity(environ, variable, whoami)
    if environ.get("EVALBOT_ID_TOKEN"):
        return Credential("id-token", environ["EVALBOT_ID_TOKEN"].strip())
    if environ.get("EVALBOT_ID_TOKEN_FILE"):
        path = Path(environ["EVALBOT_ID_TOKEN_FILE"])
        try:
            value = path.read_text(encoding="utf-8").strip()
        except OSError as error:
            raise SubmitError(f"EVALBOT_ID_TOKEN_FILE: cannot read {path}: {error}") from error
        return Credential("id-token", value)
    client_id, secret = environ.get("EVALBOT_CLIENT_ID"), environ.get("EVALBOT_CLIENT_SECRET")
    if client_id or secret:
        if not (client_id and secret):
            missing = "EVALBOT_CLIENT_SECRET" if client_id else "EVALBOT_CLIENT_ID"
            raise SubmitError(f"OAuth client credentials: {missing} is not set")
        return Credential("client", client_credentials(client_id.strip(), secret.strip()))
    token = ambient(audience())
    if token is not None:
        return Credential("ci-oidc", token)
    if environ.get(FORMER_HUB_IDENTITY):
        raise SubmitError(
            f"{NO_IDENTITY}. {FORMER_HUB_IDENTITY} is no longer sent on its own: if it holds "
            f"a read token, pass --hub-identity {FORMER_HUB_IDENTITY}"
        )
    raise SubmitError(NO_IDENTITY)
