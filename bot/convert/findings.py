"""What a conversion found, as the lines `evalbot convert` and `evalbot submit` print, each
naming its input file (docs/convert.md, "Nothing dropped without a word"). Pure."""

from __future__ import annotations

from bot.convert.api import Conversion
from bot.convert.build import Unmapped
from bot.report.validation_formats import render_text

#: suggested rows printed before "and N more" (a 180-task run would otherwise print hundreds)
SUGGESTIONS_SHOWN = 10


def findings(
    conversion: Conversion, *, allow_partial: bool, all_suggestions: bool = False
) -> list[str]:
    """Every finding of `conversion`, blocking or not, in the order `evalbot convert` prints."""
    source = conversion.source
    lines: list[str] = []
    kind = "note" if allow_partial else "error"
    lines.extend(f"{kind}: {source}: {problem}" for problem in conversion.run_problems)
    for left in conversion.left_out:
        where = f"{source}: task `{left.task}` metric `{left.metric}`: {left.reason}"
        if allow_partial:
            lines.append(f"warning: {where}; left out, the other scores are written")
        else:
            lines.append(
                f"error: {where}; --allow-partial writes the other scores and leaves this one out"
            )
    lines.extend(f"note: {source}: {note}" for note in conversion.notes)
    blocking = [*conversion.problems, *map(str, conversion.mapping_problems)]
    lines.extend(f"error: {source}: {problem}" for problem in blocking)
    ignored = [
        f"warning: {source}: task `{left.task}` metric `{left.metric}`: {left.reason};"
        " no row maps it, nothing is written for it"
        for left in conversion.ignored
    ]
    lines.extend(_capped(ignored, all_suggestions, "warnings like these"))
    suggested = list(conversion.unmapped)
    if all_suggestions:
        suggested.extend(conversion.not_needed)
    lines.extend(_suggestions(source, suggested, all_suggestions=all_suggestions))
    if conversion.reports and not all(report.ok for report in conversion.reports):
        lines.append(f"{source}: the entries converted from it would be refused:")
        lines.append(render_text(conversion.reports, strict=False))
    return lines


def _suggestions(source: str, unmapped: list[Unmapped], *, all_suggestions: bool) -> list[str]:
    """The rows to add, grouped by task (tasks in the output's order), capped."""
    if not unmapped:
        return []
    by_task: dict[str, list[Unmapped]] = {}
    for item in unmapped:
        by_task.setdefault(item.task, []).append(item)
    items = [item for group in by_task.values() for item in group]
    rows = [f"  {item.line}" for item in items]
    tasks = len(by_task)
    lines = [
        f"{source}: {len(unmapped)} score(s) of {tasks} task(s) not mapped; to convert one,"
        " add its row to a --mappings file (under `mappings:`):"
    ]
    shown = rows if all_suggestions else rows[:SUGGESTIONS_SHOWN]
    lines.extend(shown)
    rest = len(rows) - len(shown)
    if rest:
        rest_tasks = len({item.task for item in items[len(shown) :]})
        lines.append(
            f"  ... and {rest} more row(s) for {rest_tasks} task(s): --all-suggestions lists them"
        )
    return lines


def _capped(lines: list[str], show_all: bool, what: str) -> list[str]:
    if show_all or len(lines) <= SUGGESTIONS_SHOWN:
        return lines
    rest = len(lines) - SUGGESTIONS_SHOWN
    return [
        *lines[:SUGGESTIONS_SHOWN],
        f"  ... and {rest} more {what}: --all-suggestions lists them",
    ]
