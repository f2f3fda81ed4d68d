"""A framework's output, converted by `bot.convert`, made ready for the issuer (docs/convert.md).

The conversion is refused exactly when `evalbot convert` would write nothing: a failed or
partial run (unless `allow_partial`), a mapping row its benchmark contradicts, an entry the bot
would refuse, or no score mapped at all; the message holds the convert's own lines (the mapping
row to add for each unmapped score). Scores left unmapped beside mapped ones do not block, as
in `evalbot convert`: they are listed, and the mapped ones are submitted.

The issuer signs only pinned revisions, and a framework's output never records the benchmark
repo's commit: each entry's `dataset.revision` is pinned to the benchmark's current commit
(what the entry was just validated against). `model_revision` is the output's when it records
one; otherwise the caller names it (`--model-revision`), never a guess. Entries are copied,
never changed in place, and their values keep their type (`bot.convert.scale.Scaled` carries
the exact decimal through to the file, `bot.validation.yamldump`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from bot.convert.api import Conversion
from bot.convert.findings import findings
from bot.submit.errors import SubmitError
from bot.validation.model import is_sha40


@dataclass(frozen=True, slots=True)
class ConvertedOutput:
    """One framework output's conversion and the file it came from: a submission of several
    outputs names the file in any refusal of its entries."""

    path: str
    conversion: Conversion


def converted_entries(
    conversion: Conversion,
    *,
    allow_partial: bool = False,
    model_revision: str | None = None,
    benchmark_revision: Callable[[str], str],
) -> list[dict[str, Any]]:
    """The conversion's entries with pinned revisions, or `SubmitError` with its findings."""
    if model_revision is not None and not is_sha40(model_revision):
        raise SubmitError(
            f"--model-revision {model_revision!r}: give the model's full 40-hex commit SHA"
        )
    lines = findings(conversion, allow_partial=allow_partial)
    if not conversion.ok(allow_partial=allow_partial):
        raise SubmitError("\n".join([*lines, "nothing submitted"]))
    if not conversion.entries:
        raise SubmitError("\n".join([*lines, "no score is mapped: nothing to submit"]))
    revisions: dict[str, str] = {}
    pinned: list[dict[str, Any]] = []
    for index, entry in enumerate(conversion.entries):
        dataset = dict(entry["dataset"])
        if "revision" not in dataset:
            benchmark = str(dataset["id"])
            if benchmark not in revisions:
                revisions[benchmark] = benchmark_revision(benchmark)
            dataset["revision"] = revisions[benchmark]
        copy = {**entry, "dataset": dataset}
        copy["model_revision"] = _model_revision(index, entry, model_revision)
        pinned.append(copy)
    return pinned


def _model_revision(index: int, entry: dict[str, Any], given: str | None) -> str:
    recorded = entry.get("model_revision")
    where = f"entry {index} ({entry['dataset']['id']}, task {entry['dataset']['task_id']})"
    if recorded is None:
        if given is None:
            raise SubmitError(
                f"{where}: the output records no model revision; pass --model-revision SHA "
                "(`model_revision=` from Python), the commit of the model that was evaluated"
            )
        return given
    if given is not None and given != recorded:
        raise SubmitError(
            f"{where}: the output records model revision {recorded}, not {given}; "
            "drop --model-revision, or evaluate that revision"
        )
    return str(recorded)
