"""A framework's output, converted by `bot.convert` and made ready for the issuer, revisions
pinned, never guessed (docs/convert.md, "Submitting a conversion: `evalbot submit`")."""

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
