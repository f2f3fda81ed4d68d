"""`evalbot validate --fix` and `--diff`: the findings' fixes made on the results files, pass
after pass (docs/validate.md, "Fixing"); the edits are `bot.validation.fixing`'s."""

from __future__ import annotations

import argparse
import difflib
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from bot.cli.sources import Inputs, UsageError, benchmark_source, hub_failure

if TYPE_CHECKING:
    from bot.validation.diagnostics import Diagnostic
    from bot.validation.fixing import Change, NotMade
    from bot.validation.model import FileReport
    from bot.validation.policy import Policy

#: passes over the files before stopping (each fix removes its finding, so two suffice today)
MAX_PASSES = 4


def add_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_mutually_exclusive_group()
    group.add_argument(
        "--fix",
        action="store_true",
        help="make the fixes that have one right answer in the results files, then show what"
        " is left",
    )
    group.add_argument(
        "--diff",
        action="store_true",
        help="print the changes --fix would make as a unified diff; write nothing (exit 1 if"
        " there is one)",
    )


@dataclass(slots=True)
class _Repo:
    """One repo's results files as the passes leave them (repo-relative paths)."""

    root: Path
    shown: dict[str, str]  # relative path -> the path as shown (and written)
    original: dict[str, bytes]  # relative path at the start -> its bytes
    write: bool
    current: dict[str, bytes] = field(default_factory=dict)
    origin: dict[str, str] = field(default_factory=dict)  # current relative -> original one


@dataclass(slots=True)
class Outcome:
    """What the fixes did: the paths renamed (as shown: old -> new), and whether any changed."""

    renamed: dict[str, str] = field(default_factory=dict)
    changed: bool = False


def fix(inputs: Inputs, benchmarks_dir: str | None, policy: Policy, *, write: bool) -> Outcome:
    """Fix every repo's results files; write them (`write`) or print their diff."""
    from bot.cli.validate import transient_errors
    from bot.validation.validate import validate_results_files

    source = benchmark_source(benchmarks_dir) if inputs.results else None
    failed = transient_errors(benchmarks_dir)
    outcome = Outcome()
    made = left = 0
    for root, group in inputs.results.items():
        repo = _Repo(
            Path(root),
            shown={relative: shown for relative, (shown, _) in group.files.items()},
            original={relative: content for relative, (_, content) in group.files.items()},
            write=write,
        )
        repo.current = dict(repo.original)
        repo.origin = {relative: relative for relative in repo.original}
        assert source is not None
        for _ in range(MAX_PASSES):
            try:
                reports = validate_results_files(repo.current, source, policy=policy)
            except failed as error:  # network, HTTP 5xx, rate limits: nothing is written
                raise UsageError(hub_failure("validate", error)) from error
            progress = False
            not_made: list[tuple[str, NotMade]] = []
            for report in reports:
                done, skipped = _fix_one(repo, report)
                progress = progress or done > 0
                made += done
                not_made.extend((report.path, item) for item in skipped)
            if not progress:
                for relative, item in not_made:
                    left += 1
                    line = _line(repo, relative, item.diagnostic, f"not fixed: {item.reason}")
                    print(line, file=sys.stderr)
                break
        outcome.changed = outcome.changed or _finish(repo, write, outcome)
    print(summary(made, left, write=write), file=sys.stderr)
    return outcome


def summary(made: int, left: int, *, write: bool) -> str:
    """The closing line: what was (or would be) fixed, the fixes not made, and who is next."""
    if made:
        noun = "finding" if made == 1 else "findings"
        said = f"{'Fixed' if write else 'Would fix'} {made} {noun}"
    else:
        said = "Nothing to fix" if write else "Nothing would be fixed"
    if left:
        said += f"; {left} {'fix was' if left == 1 else 'fixes were'} not made (why, above)"
    return f"{said}. Any finding still reported needs a person."


def _fix_one(repo: _Repo, report: FileReport) -> tuple[int, list[NotMade]]:
    from bot.validation.fixing import NotMade, fix_file

    relative = report.path
    result = fix_file(report, repo.current[relative])
    done = 0
    if result.content is not None:
        repo.current[relative] = result.content
        for change in result.changes:
            if change.diagnostic.fix is not None and change.diagnostic.fix.action != "rename-file":
                print(_change_line(repo, relative, change), file=sys.stderr)
                done += 1
    if result.rename is not None and result.rename != relative:
        target = result.rename
        on_disk = (repo.root / target).exists() and repo.origin.get(target) is None
        if target in repo.current or on_disk:
            rename = next(c for c in result.changes if c.new == target)
            result.not_made.append(NotMade(rename.diagnostic, f"`{target}` exists already"))
        else:
            repo.current[target] = repo.current.pop(relative)
            repo.origin[target] = repo.origin.pop(relative)
            shown_old = repo.shown[repo.origin[target]]
            verb = "renamed" if repo.write else "would rename"
            print(f"{shown_old}: {verb} to {_shown_for(repo, target)}", file=sys.stderr)
            done += 1
    return done, result.not_made


def _shown_for(repo: _Repo, relative: str) -> str:
    """The path to show (and write) for a repo-relative path, beside the file it came from."""
    original = repo.origin.get(relative, relative)
    shown = repo.shown.get(original)
    if shown is None:
        return str(repo.root / relative)
    if original == relative:
        return shown
    return os.path.join(os.path.dirname(shown), Path(relative).name)


def _change_line(repo: _Repo, relative: str, change: Change) -> str:
    verb = "fixed" if repo.write else "would fix"
    return _line(repo, relative, change.diagnostic, f"{verb}: {change.old} -> {change.new}")


def _line(repo: _Repo, relative: str, diagnostic: Diagnostic, what: str) -> str:
    where = _shown_for(repo, relative)
    if diagnostic.line is not None:
        where += f":{diagnostic.line}"
        if diagnostic.column is not None:
            where += f":{diagnostic.column}"
    field_text = f" {diagnostic.field}" if diagnostic.field else ""
    return f"{where}: {diagnostic.code}{field_text} {what}"


def _finish(repo: _Repo, write: bool, outcome: Outcome) -> bool:
    """Write (or print the diff of) the files the passes changed; True when any did."""
    changed = False
    for relative, content in repo.current.items():
        original = repo.origin[relative]
        old_shown = repo.shown[original]
        new_shown = _shown_for(repo, relative)
        if content == repo.original[original] and relative == original:
            continue
        changed = True
        if not write:
            sys.stdout.write(_diff(repo.original[original], content, old_shown, new_shown))
            continue
        try:
            if new_shown != old_shown:
                if os.path.exists(new_shown):
                    raise UsageError(f"{new_shown}: exists already; nothing renamed")
                os.replace(old_shown, new_shown)
                outcome.renamed[old_shown] = new_shown
            if content != repo.original[original]:
                Path(new_shown).write_bytes(content)
        except OSError as error:
            raise UsageError(f"{new_shown}: {error.strerror}") from error
    return changed


def _diff(old: bytes, new: bytes, old_path: str, new_path: str) -> str:
    lines = difflib.unified_diff(
        old.decode("utf-8", "replace").splitlines(keepends=True),
        new.decode("utf-8", "replace").splitlines(keepends=True),
        fromfile=f"a/{old_path}",
        tofile=f"b/{new_path}",
    )
    text = "".join(line if line.endswith("\n") else line + "\n" for line in lines)
    if not text and old_path != new_path:
        text = f"rename from {old_path}\nrename to {new_path}\n"
    return text
