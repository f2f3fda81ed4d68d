"""The CI job's identity, found in its environment, in the order a job most likely has it:

1. GitHub Actions with `permissions: id-token: write`: `ACTIONS_ID_TOKEN_REQUEST_URL` and
   `ACTIONS_ID_TOKEN_REQUEST_TOKEN`; an ID token is requested for the issuer's audience;
2. a generic ID token (GitLab CI `id_tokens:`, any other provider): `EVALBOT_ID_TOKEN`, or a
   file named by `EVALBOT_ID_TOKEN_FILE`;
3. a Hugging Face access token: `EVALBOT_ISSUER_HF_TOKEN`, else `HF_TOKEN`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

import httpx2

from bot.submit.errors import SubmitError

TIMEOUT_S = 10.0


@dataclass(frozen=True)
class Credential:
    kind: str  # "github-actions", "id-token", "hf-token"
    value: str

    def __repr__(self) -> str:
        return f"Credential({self.kind!r}, '***')"

    @property
    def authorization(self) -> str:
        return f"Bearer {self.value}"


def github_actions_token(url: str, request_token: str, audience: str) -> str:
    separator = "&" if "?" in url else "?"
    try:
        response = httpx2.get(
            f"{url}{separator}audience={quote(audience, safe='')}",
            headers={"Authorization": f"Bearer {request_token}"},
            timeout=TIMEOUT_S,
        )
    except httpx2.HTTPError as error:
        raise SubmitError(f"cannot get an ID token from GitHub Actions: {error}") from error
    if response.status_code != 200:
        raise SubmitError(
            f"GitHub Actions refused an ID token ({response.status_code}); does the job have "
            "`permissions: id-token: write`?"
        )
    try:
        value = response.json()["value"]
    except (ValueError, KeyError, TypeError) as error:
        raise SubmitError("GitHub Actions answered without an ID token") from error
    if not isinstance(value, str):
        raise SubmitError("GitHub Actions answered without an ID token")
    return value


def ci_credential(environ: Mapping[str, str], audience: str) -> Credential:
    """The best identity this job has; `SubmitError` saying what to set when it has none."""
    url = environ.get("ACTIONS_ID_TOKEN_REQUEST_URL")
    request_token = environ.get("ACTIONS_ID_TOKEN_REQUEST_TOKEN")
    if url and request_token:
        return Credential("github-actions", github_actions_token(url, request_token, audience))
    if environ.get("EVALBOT_ID_TOKEN"):
        return Credential("id-token", environ["EVALBOT_ID_TOKEN"].strip())
    if environ.get("EVALBOT_ID_TOKEN_FILE"):
        path = Path(environ["EVALBOT_ID_TOKEN_FILE"])
        try:
            return Credential("id-token", path.read_text(encoding="utf-8").strip())
        except OSError as error:
            raise SubmitError(f"EVALBOT_ID_TOKEN_FILE: cannot read {path}: {error}") from error
    hub = environ.get("EVALBOT_ISSUER_HF_TOKEN") or environ.get("HF_TOKEN")
    if hub:
        return Credential("hf-token", hub.strip())
    raise SubmitError(
        "no CI identity found: run in GitHub Actions with `permissions: id-token: write`, "
        "set EVALBOT_ID_TOKEN (GitLab `id_tokens:`) or EVALBOT_ID_TOKEN_FILE, or HF_TOKEN"
    )
