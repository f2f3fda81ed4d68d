"""What a conversion found, as the lines a person reads: `evalbot convert` and `evalbot submit`
print the same ones (docs/convert.md).

A failed or partial run is an `error:` line, or a `note:` when `allow_partial` lets its scores
through; an unmapped score is listed with the exact mapping row to add; entries the bot would
refuse are shown as `evalbot validate` shows them. Pure: lines in, nothing printed here.
"""

from __future__ import annotations

from bot.convert.api import Conversion
from bot.report.validation import render_text


def findings(conversion: Conversion, *, allow_partial: bool) -> list[str]:
    """Every finding of `conversion`, blocking or not, in the order `evalbot convert` prints."""
    lines: list[str] = []
    kind = "note" if allow_partial else "error"
    lines.extend(f"{kind}: {conversion.adapter}: {problem}" for problem in conversion.run_problems)
    blocking = [*conversion.problems, *map(str, conversion.mapping_problems)]
    lines.extend(f"error: {problem}" for problem in blocking)
    if conversion.unmapped:
        lines.append(
            f"{len(conversion.unmapped)} score(s) not mapped; to convert one, add its row"
            " to a --mappings file (under `mappings:`):"
        )
        lines.extend(f"  {unmapped.line}" for unmapped in conversion.unmapped)
    if conversion.reports and not all(report.ok for report in conversion.reports):
        lines.append(render_text(conversion.reports, strict=False))
    return lines
