"""The rules across the entries and files of a repo: duplicate entries, and each results file's
path and name."""

from __future__ import annotations

from dataclasses import dataclass, field

from bot.validation import diagnostics
from bot.validation.diagnostics import Diagnostic, Fix
from bot.validation.model import Benchmark, ResultEntry, benchmark_file_stem
from bot.validation.positions import Locator


@dataclass
class RepoChecks:
    """State kept across the files of one repo: duplicate keys and file-name warnings."""

    seen: dict[tuple[str, str, str | None], tuple[str, int]] = field(default_factory=dict)

    def duplicate(
        self, path: str, entry: ResultEntry, benchmark: Benchmark | None, where: Locator
    ) -> Diagnostic | None:
        """The later of two entries with the same (benchmark, task, notes) carries the error."""
        if entry.dataset_id is None or entry.task_id is None:
            return None
        benchmark_id = (benchmark.repo_id if benchmark else entry.dataset_id).lower()
        notes = entry.data.get("notes")
        key = (benchmark_id, entry.task_id, notes if isinstance(notes, str) else None)
        first = self.seen.get(key)
        if first is None:
            self.seen[key] = (path, entry.index)
            return None
        return where.diagnostic(
            "ENTRY-DUPLICATE",
            ("dataset",),
            other_number=first[1] + 1,  # counted from 1 like every entry shown to a person
            other_index=first[1],
            other_path=first[0],
        )


def file_name_diagnostic(
    path: str, entry: ResultEntry, benchmark: Benchmark | None, where: Locator
) -> Diagnostic | None:
    """The draft naming rule (F2), a warning: `.eval_results/<benchmark repo name>.yaml`.

    A suffix after `_` is accepted for variants (`hle_with_tools.yaml`), as HF's own
    community-evals guidance asks for separate files per variant (docs/specs.md#validation-rules,
    F2).
    """
    if entry.dataset_id is None:
        return None
    dataset_id = benchmark.repo_id if benchmark else entry.dataset_id
    expected = benchmark_file_stem(dataset_id)
    name = path.rsplit("/", 1)[-1]
    stem = name.rsplit(".", 1)[0] if "." in name else name
    if stem == expected or stem.startswith(expected + "_"):
        return None
    # a name that follows the rule once lower-cased with `-` as `_` keeps its variant suffix
    normalised = benchmark_file_stem(stem)
    if normalised == expected or normalised.startswith(expected + "_"):
        expected = normalised
    parts = path.split("/")
    in_folder = len(parts) == 2 and parts[0] == ".eval_results"
    return where.diagnostic(
        "FILE-NAME",
        ("dataset", "id"),
        name=name,
        dataset_id=dataset_id,
        expected=f"{expected}.yaml",
        fix=Fix("rename-file", f".eval_results/{expected}.yaml") if in_folder else None,
    )


def file_path_diagnostic(path: str) -> Diagnostic | None:
    """Results files sit directly in `.eval_results/` and end in `.yaml` (F1); the message
    says which of the two is wrong, and the hint whether to move or to rename."""
    parts = path.split("/")
    name = parts[-1]
    in_folder = len(parts) == 2 and parts[0] == ".eval_results"
    if in_folder and name.endswith(".yaml"):
        return None
    stem = name.rsplit(".", 1)[0] if "." in name else name
    problems = []
    if not in_folder:
        problems.append(
            "live directly in `.eval_results/`, not in a sub-folder"
            if ".eval_results" in parts[:-1]
            else "live in the repo's `.eval_results/` folder"
        )
    if not name.endswith(".yaml"):
        problems.append(f"end in `.yaml`, not `{name[len(stem) :] or 'nothing'}`")
    # moved within the repo's `.eval_results/` only: a file outside it may be anywhere
    inside = parts[0] == ".eval_results"
    return diagnostics.make(
        "FILE-PATH",
        path=path,
        problem="results files " + " and ".join(problems),
        verb="move the file to" if not in_folder else "rename the file to",
        suggestion=f"{stem}.yaml",
        fix=Fix("rename-file", f".eval_results/{stem}.yaml") if inside else None,
    )


def looks_like_benchmark(data: object) -> bool:
    """A mapping with `tasks`: an eval.yaml under another name (a results file is a list)."""
    return isinstance(data, dict) and "tasks" in data
