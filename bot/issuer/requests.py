"""The body of a token request (`POST /v1/tokens`, docs/issuer.md, "Endpoints"), parsed strictly
(pure)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from bot.issuer.refusals import Refusal
from bot.strictjson import I_JSON, JsonError
from bot.tokens.claims import TOKEN_KEYS
from bot.validation.limits import DEFAULT_LIMITS
from bot.validation.model import is_repo_id

MAX_ENTRIES = 50
#: Container levels an entry may have: a results file's top-level list is level 1.
MAX_ENTRY_DEPTH = DEFAULT_LIMITS.max_depth - 1


@dataclass(frozen=True)
class TokenRequest:
    model_repo: str
    entries: tuple[dict[str, Any], ...]
    framework: str | None = None


def parse_request(body: bytes) -> TokenRequest:
    try:
        data = I_JSON.read(body)
    except JsonError as error:
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
    if not all(_writable(entry) for entry in entries):
        raise Refusal("request-malformed", 400)
    return TokenRequest(model_repo=model_repo, entries=tuple(entries), framework=framework)


def _writable(entry: dict[str, Any]) -> bool:
    """True when `entry` nests at most `MAX_ENTRY_DEPTH` levels and all its text is UTF-8.

    Iterative, so a hostile entry cannot exhaust the stack here either.
    """
    stack: list[tuple[Any, int]] = [(entry, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, str):
            try:
                value.encode("utf-8")
            except UnicodeEncodeError:
                return False
        elif isinstance(value, dict | list):
            if depth > MAX_ENTRY_DEPTH:
                return False
            items = value.items() if isinstance(value, dict) else enumerate(value)
            for key, item in items:
                stack.append((key, depth))
                stack.append((item, depth + 1))
    return True
