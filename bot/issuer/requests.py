"""The body of a token request, parsed strictly (pure).

    POST /v1/tokens
    {"model_repo": "acme/llama-9b",            # where the results will be published
     "entries": [{...result entry...}, ...],   # 1..MAX_ENTRIES, as they will be written
     "framework": "lighteval"}                 # optional: for live entries that state none

Duplicate names, NaN/Infinity and numbers a double cannot hold are refused (the digest would
be ambiguous); so is anything else than this shape.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from bot.issuer.refusals import Refusal
from bot.spec.formats import is_repo_id
from bot.tokens.claims import TOKEN_KEYS
from bot.tokens.strictjson import loads_strict

MAX_ENTRIES = 50


@dataclass(frozen=True)
class TokenRequest:
    model_repo: str
    entries: tuple[dict[str, Any], ...]
    framework: str | None = None


def parse_request(body: bytes) -> TokenRequest:
    try:
        data = loads_strict(body)
    except ValueError as error:
        raise Refusal("request-not-json", 400) from error
    if not isinstance(data, dict) or set(data) - {"model_repo", "entries", "framework"}:
        raise Refusal("request-malformed", 400)
    model_repo, entries, framework = (
        data.get("model_repo"),
        data.get("entries"),
        data.get("framework"),
    )
    if not isinstance(model_repo, str) or not is_repo_id(model_repo):
        raise Refusal("request-malformed", 400)
    if not isinstance(entries, list) or not 1 <= len(entries) <= MAX_ENTRIES:
        raise Refusal("request-malformed", 400)
    if not all(isinstance(entry, dict) and not TOKEN_KEYS & set(entry) for entry in entries):
        raise Refusal("request-malformed", 400)
    if framework is not None and (not isinstance(framework, str) or not framework):
        raise Refusal("request-malformed", 400)
    return TokenRequest(model_repo=model_repo, entries=tuple(entries), framework=framework)
