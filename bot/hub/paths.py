"""Which repo paths are results files: the Hub reads `.eval_results/*.yaml`, one level deep.

The rule is the Hub's (docs/specs.md#validation-rules, F1): a file directly inside `.eval_results/`
whose name ends in `.yaml`. Near misses are worth telling the author about, because the Hub
silently ignores them: `.yml`, `.YAML`, a sub-folder, a differently cased folder. Those are
`misplaced`: never read as results, reported so the comment can say why the score will not show.
Paths with `.`/`..`/empty segments cannot come out of a git tree; if one ever does, it is
treated as misplaced and never fetched.
"""

from __future__ import annotations

from enum import StrEnum

RESULTS_DIR = ".eval_results"


class PathKind(StrEnum):
    RESULTS = "results"  # the Hub reads it
    MISPLACED = "misplaced"  # looks meant as results, but the Hub will not read it
    OTHER = "other"


def classify_path(path: str) -> PathKind:
    segments = path.split("/")
    if not any(segment.lower() == RESULTS_DIR for segment in segments):
        return PathKind.OTHER
    if any(segment in ("", ".", "..") for segment in segments):
        return PathKind.MISPLACED
    if (
        len(segments) == 2
        and segments[0] == RESULTS_DIR
        and segments[1].endswith(".yaml")
        and len(segments[1]) > len(".yaml")
    ):
        return PathKind.RESULTS
    return PathKind.MISPLACED
