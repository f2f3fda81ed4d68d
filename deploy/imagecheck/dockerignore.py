"""`.dockerignore` matching with Docker's rules (moby's `patternmatcher`); no I/O.

Each line is a pattern, cleaned like Go's `filepath.Clean` (a leading `/` dropped); `*` and
`?` stop at `/`, `**` spans any number of directories; `!` re-includes. The last pattern
that matches a path or one of its parent directories decides, so `!` can re-include files
under an excluded directory, as Docker's build context does.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Pattern:
    text: str
    exclusion: bool  # a `!` line: matching paths are re-included
    regex: re.Pattern[str]


def parse(text: str) -> list[Pattern]:
    patterns: list[Pattern] = []
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        exclusion = line.startswith("!")
        if exclusion:
            line = line[1:].strip()
        cleaned = posixpath.normpath(line).lstrip("/")
        if cleaned in ("", "."):
            continue
        patterns.append(Pattern(cleaned, exclusion, _compile(cleaned)))
    return patterns


def excluded(path: str, patterns: list[Pattern]) -> bool:
    """Whether `path` (relative to the context, `/`-separated) stays out of the context."""
    parents = _self_and_parents(path)
    result = False
    for pattern in patterns:
        if any(pattern.regex.fullmatch(candidate) for candidate in parents):
            result = not pattern.exclusion
    return result


def _self_and_parents(path: str) -> list[str]:
    parts = posixpath.normpath(path).split("/")
    return ["/".join(parts[: index + 1]) for index in range(len(parts))]


def _compile(pattern: str) -> re.Pattern[str]:
    """Moby's translation of a pattern into a regular expression."""
    out = []
    index = 0
    while index < len(pattern):
        char = pattern[index]
        if char == "*":
            if pattern.startswith("**", index):
                index += 1
                if pattern.startswith("/", index + 1):
                    index += 1  # `**/` is `**`: it may match no directory at all
                # At the end `**` takes everything; elsewhere any number of directories.
                out.append(".*" if index + 1 == len(pattern) else "(.*/)?")
            else:
                out.append("[^/]*")
        elif char == "?":
            out.append("[^/]")
        elif char == "\\" and index + 1 < len(pattern):
            index += 1
            out.append(re.escape(pattern[index]))
        elif char == "[":
            end = pattern.find("]", index + 1)
            if end == -1:
                raise ValueError(f"unterminated character class in {pattern!r}")
            body = pattern[index + 1 : end]
            if body.startswith("^"):
                body = "!" + body[1:]
            out.append("[" + ("^" + body[1:] if body.startswith("!") else body) + "]")
            index = end
        else:
            out.append(re.escape(char))
        index += 1
    return re.compile("".join(out))
