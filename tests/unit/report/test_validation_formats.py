"""The validation report's renderers, called directly: pure, reports in and text out."""

from __future__ import annotations

import re

from bot.report.validation_formats import (
    Style,
    counts,
    render_github,
    render_text,
    workflow_data,
    workflow_property,
)
from bot.validation.validate import validate_benchmark_file


def test_text_marks_each_span_with_its_style_and_is_plain_by_default() -> None:
    report = validate_benchmark_file("eval.yaml", b"name: X\n")
    marked: list[tuple[str, Style]] = []

    def record(text: str, style: Style) -> str:
        marked.append((text, style))
        return f"<{style.value}>{text}</{style.value}>"

    painted = render_text([report], strict=False, paint=record)
    plain = render_text([report], strict=False)
    assert ("eval.yaml", Style.BOLD) in marked
    assert any(style is Style.ERROR and "error" in text for text, style in marked)
    assert "<error>" in painted
    # painting only wraps spans: take the marks away and the plain text is left
    assert re.sub(r"</?(bold|dim|ok|warning|error)>", "", painted) == plain
    errors, _warnings = counts([report])
    assert errors > 0
    assert f"{errors} error" in plain


def test_workflow_commands_escape_what_would_end_or_split_them() -> None:
    assert workflow_data("50%\r\nnext") == "50%25%0D%0Anext"
    assert workflow_property("a:b,c") == "a%3Ab%2Cc"
    report = validate_benchmark_file("dir,x/eval.yaml", b"name: X\n")
    lines = render_github([report]).splitlines()
    assert lines
    assert all(line.startswith(("::error file=dir%2Cx/eval.yaml,", "::warning ")) for line in lines)
