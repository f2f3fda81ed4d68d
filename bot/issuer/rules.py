"""`evalbot issuer identity`: the `identities:` rule for a CI job, with the immutable ids it must
pin, read from one of the job's own ID tokens (docs/issuer.md, "Integrations")."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import jwt

from bot.issuer.integrations import EVENTS_NAMED_ONLY

#: What a rule pins for each provider type, ids first; the claims a token lacks are skipped.
#: `job_workflow_ref` is the workflow file the job itself runs (a reusable workflow's, when
#: the job calls one; else the same as `workflow_ref`).
PINNED = {
    "github": (
        "repository_owner_id",
        "repository_id",
        "repository",
        "workflow_ref",
        "job_workflow_ref",
        "environment",
    ),
    "gitlab": ("namespace_id", "project_id", "project_path", "ci_config_ref_uri", "environment"),
}
#: The name each id stands for, shown beside it.
NAMED_BY = {
    "repository_owner_id": "repository_owner",
    "repository_id": "repository",
    "namespace_id": "namespace_path",
    "project_id": "project_path",
}


class ClaimsUnreadable(ValueError):
    """The input is neither an ID token nor a JSON object of claims."""


def read_claims(text: str) -> dict[str, Any]:
    """The claims of an ID token (compact JWT, decoded without verification) or of a JSON
    object of claims (what a job printed)."""
    text = text.strip()
    try:
        if text.startswith("{"):
            claims = json.loads(text)
        else:
            claims = jwt.decode(text, options={"verify_signature": False})
    except (ValueError, jwt.PyJWTError) as error:
        raise ClaimsUnreadable(f"not an ID token nor a JSON object of claims: {error}") from error
    if not isinstance(claims, dict):
        raise ClaimsUnreadable("not an ID token nor a JSON object of claims")
    return claims


def provider_type(claims: Mapping[str, Any]) -> str:
    if "repository_owner_id" in claims:
        return "github"
    if "namespace_id" in claims:
        return "gitlab"
    raise ClaimsUnreadable(
        "the claims hold neither GitHub's `repository_owner_id` nor GitLab's `namespace_id`"
    )


def identity_rule(claims: Mapping[str, Any], provider_name: str | None = None) -> str:
    """The YAML of one `identities:` item pinning what `claims` say about the job."""
    kind = provider_type(claims)
    event = claims.get("event_name") or claims.get("pipeline_source") or "unknown"
    lines = [
        f"# from an ID token of {json.dumps(str(claims.get('iss', 'an unknown issuer')))}, "
        f"event {json.dumps(str(event))}",
        f"- provider: {provider_name or kind}",
        "  claims:",
    ]
    for name in PINNED[kind]:
        value = claims.get(name)
        if value is None or value == "":
            continue
        line = f"    {name}: {json.dumps(str(value))}"
        named = claims.get(NAMED_BY.get(name, ""))
        # the name as a JSON string body: a control character in a claim cannot add a line
        lines.append(f"{line}  # {json.dumps(str(named))[1:-1]}" if named else line)
    if kind == "github" and event in EVENTS_NAMED_ONLY:
        # a run of this event is vouched for only by a rule that names it
        lines.append(
            f"    event_name: {json.dumps(str(event))}  # outsiders can start or steer this"
            ' event: docs/issuer.md, "Events"'
        )
    return "\n".join(lines) + "\n"
