"""The Hub's list of evaluation frameworks, shipped as data and refreshable, read once at import;
an unknown id is only a warning (docs/validate.md, "Evaluation frameworks")."""

from __future__ import annotations

import difflib
import json
import re
from dataclasses import dataclass
from importlib import resources
from typing import Any

#: Where the Hub's list is published (raw file of huggingface.js's main branch).
DEFAULT_SOURCE = (
    "https://raw.githubusercontent.com/huggingface/huggingface.js/main/packages/tasks/src/eval.ts"
)
#: How a framework id looks (the list's own ids: lower case, digits, `-`, `.`, `_`).
FRAMEWORK_ID = re.compile(r"[a-z0-9][a-z0-9._-]{0,63}\Z")

_DECLARATION = re.compile(r"EVALUATION_FRAMEWORKS\s*=\s*\{(?P<body>.*?)\n\}", re.DOTALL)
_NAME = re.compile(r"""\bname\s*:\s*(?P<quote>["'])(?P<name>[^"'\n]*)(?P=quote)""")

#: Similarity (difflib ratio, lower-cased) from which a known id is offered as a correction,
#: and the lead it needs over the next one: a suggestion must be close and unambiguous.
SUGGEST_RATIO = 0.8
SUGGEST_MARGIN = 0.05


class FrameworkListError(ValueError):
    """The source does not hold a list of framework ids that can be trusted."""


@dataclass(frozen=True, slots=True)
class FrameworkList:
    """The framework ids, where they were read from and on which day (UTC, ISO date)."""

    names: tuple[str, ...]
    source: str
    refreshed: str

    def to_json(self) -> dict[str, Any]:
        return {"source": self.source, "refreshed": self.refreshed, "frameworks": list(self.names)}

    @classmethod
    def from_json(cls, data: Any) -> FrameworkList:
        if not isinstance(data, dict) or not isinstance(data.get("frameworks"), list):
            raise FrameworkListError("expected an object with a `frameworks` list")
        return cls(
            names=check_names(data["frameworks"]),
            source=str(data.get("source", "")),
            refreshed=str(data.get("refreshed", "")),
        )


def check_names(names: list[Any]) -> tuple[str, ...]:
    """The ids, each checked, in their order; refuses an empty list or a malformed id."""
    if not names:
        raise FrameworkListError("no framework id found")
    for name in names:
        if not isinstance(name, str) or not FRAMEWORK_ID.match(name):
            raise FrameworkListError(f"not a framework id: {name!r}")
    if len(set(names)) != len(names):
        raise FrameworkListError("a framework id appears twice")
    return tuple(names)


def parse_eval_ts(text: str) -> tuple[str, ...]:
    """The `name`s of huggingface.js's `EVALUATION_FRAMEWORKS` object, in source order."""
    declaration = _DECLARATION.search(text)
    if declaration is None:
        raise FrameworkListError("no `EVALUATION_FRAMEWORKS = {...}` declaration found")
    return check_names([match["name"] for match in _NAME.finditer(declaration["body"])])


def close_match(value: str, names: tuple[str, ...]) -> str | None:
    """The known id `value` is a typo of, or None: case-insensitively equal, or at least
    `SUGGEST_RATIO` similar with a `SUGGEST_MARGIN` lead over every other id."""
    lowered = value.lower()
    scored = sorted(
        (
            (1.0 if name.lower() == lowered else _similarity(lowered, name.lower()), name)
            for name in names
        ),
        reverse=True,
    )
    if not scored:
        return None
    best, name = scored[0]
    runner_up = scored[1][0] if len(scored) > 1 else 0.0
    if best == 1.0 or (best >= SUGGEST_RATIO and best - runner_up >= SUGGEST_MARGIN):
        return name
    return None


def _similarity(a: str, b: str) -> float:
    return difflib.SequenceMatcher(None, a, b).ratio()


def packaged() -> FrameworkList:
    """The copy shipped in the package (`bot/data/evaluation_frameworks.json`)."""
    text = resources.files("bot").joinpath("data/evaluation_frameworks.json").read_text("utf-8")
    return FrameworkList.from_json(json.loads(text))


#: The list shipped with this release.
KNOWN = packaged()
_current = KNOWN


def current() -> FrameworkList:
    """The list the validator checks against: the shipped one, or a fresher copy `use` gave."""
    return _current


def use(fresher: FrameworkList) -> None:
    """Check against `fresher` from now on (the user's `evalbot frameworks refresh`, read by
    `bot.adapters.frameworks_file` at the command line's start)."""
    global _current  # noqa: PLW0603 - the one list of the process, set once at start-up
    _current = fresher
