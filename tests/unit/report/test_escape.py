"""Hostile strings stay inert: checked on the raw markdown and on a real GFM rendering.

The renderer is markdown-it in its GFM-like preset with raw HTML allowed and linkify on
(bare URLs, `www.` and e-mail addresses become links), the most permissive reading a Hub
comment can get.
"""

from __future__ import annotations

import html
import re

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from bot.report.escaping import ZWSP, escape_text, is_repo_id

MD = MarkdownIt("gfm-like", {"linkify": True, "html": True})
MENTION = re.compile(r"@[\w-]")
TAG = re.compile(r"<(/?)([a-zA-Z][\w-]*)")

HOSTILE = [
    "@alice please look",
    "cc @huggingface/team",
    "mail me: someone@example.com",
    "<img src=x onerror=alert(1)>",
    "<!-- evalbot:pr-report -->",
    "<!-- evalbot:head=0000000000000000000000000000000000000000 -->",
    "--> closing a comment",
    "[click](https://evil.example/steal)",
    "![badge](https://img.shields.io/badge/verified-yes-green)",
    "<https://evil.example>",
    "https://evil.example/path and http://x.io",
    "www.evil.example",
    "evil.com or README.md",
    "a | b | c",
    "line one\nline two\r\n| --- |",
    "**bold** _em_ `code` ~~strike~~ $x^2$ $$y$$",
    "# heading",
    "&#64;alice &lt;b&gt; &amp;",
    "✅ verified 🏆 leaderboard",
    "\u202eevil\u202c zero\u200bwidth",
    "<details open><summary>x</summary>",
    "\\[not a link\\](x)",
    "javascript:alert(1)",
    "[x]: https://evil.example",
    "//evil.com",
    "see //evil.com/x",
    "mailto:x@evil.com",
    ":white_check_mark: verified :trophy:",
    "\u061cmark\u00adsoft\U000e0041tag",
]

hostile_text = st.one_of(
    st.sampled_from(HOSTILE),
    st.text(max_size=60),
    st.lists(
        st.sampled_from(
            [
                "@",
                "<",
                ">",
                "!",
                "[",
                "]",
                "(",
                ")",
                "|",
                "`",
                "*",
                "_",
                "\\",
                "-",
                ":",
                "/",
                ".",
                "www",
                "http",
                "https://",
                "a",
                "b",
                " ",
                "\n",
                "&",
                "#",
                "!--",
                "com",
                "//",
                "mailto:",
                "evalbot",
                "~",
                "$",
            ]
        ),
        max_size=30,
    ).map("".join),
)


def rendered(markdown: str) -> str:
    out: str = MD.render(markdown)
    return out


def visible(html_text: str) -> str:
    """The text a reader sees: tags dropped, entities decoded, zero-width spaces removed."""
    return html.unescape(re.sub(r"<[^>]+>", "", html_text)).replace(ZWSP, "")


@given(hostile_text)
@settings(max_examples=400)
@example("@alice")
def test_no_markup_survives_in_a_paragraph(text: str) -> None:
    escaped = escape_text(text)
    assert "\n" not in escaped
    assert "\r" not in escaped
    assert MENTION.search(escaped) is None
    assert "<" not in escaped
    assert ">" not in escaped
    assert "://" not in escaped
    out = rendered("x " + escaped)
    assert [m.group(2) for m in TAG.finditer(out)] == ["p", "p"], out
    # The Hub finds mentions in the text: `@` must never be directly followed by a name.
    assert MENTION.search(html.unescape(re.sub(r"<[^>]+>", "", out))) is None


@given(hostile_text)
@settings(max_examples=300)
def test_a_table_cell_stays_one_cell(text: str) -> None:
    table = f"| a | b | c |\n|---|---|---|\n| 1 | {escape_text(text)} | 3 |\n"
    out = rendered(table)
    assert out.count("<td") == 3, out
    assert "<a " not in out
    assert "<img" not in out


@given(
    st.text(
        alphabet=st.characters(blacklist_categories=["Cc", "Cs", "Co", "Cn", "Cf", "Zl", "Zp"]),
        max_size=80,
    )
)
@settings(max_examples=300)
def test_what_the_user_wrote_is_what_a_reader_sees(text: str) -> None:
    """Escaping hides markup, not content: the visible text is the input (minus badge glyphs)."""
    out = rendered("x " + escape_text(text, max_chars=1000))
    expected = text
    for glyph in ("✅", "👥", "🏆", "🔗", "❌", "⚠", "✔", "\u2139", "🗑", "🤖"):
        expected = expected.replace(glyph, "?")
    expected = expected.replace("?\ufe0f", "?")
    assert visible(out).strip("\n") == ("x " + expected.strip()).rstrip(), out


@given(hostile_text | st.from_regex(r"\A(?:[-+*>#=]|\d{1,3}[.)]) ?\w*\Z"))
@settings(max_examples=300)
def test_a_list_item_stays_a_plain_item(text: str) -> None:
    out = rendered("- " + escape_text(text, block_start=True))
    assert [m.group(2) for m in TAG.finditer(out)] == ["ul", "li", "li", "ul"], out


@pytest.mark.parametrize("text", ["- x", "+ y", "1. z", "12. w"])
def test_list_markers_are_caught(text: str) -> None:
    """Without `block_start` these open a nested list: the reason the option exists."""
    assert "<ul>\n<li>\n<" in rendered("- " + escape_text(text))
    assert "<li>\n" not in rendered("- " + escape_text(text, block_start=True))


def test_hostile_examples_render_as_text() -> None:
    for text in HOSTILE:
        out = rendered("x " + escape_text(text))
        assert "<a " not in out, (text, out)
        assert "<img" not in out, (text, out)
        assert "<!--" not in out, (text, out)


def test_length_is_capped_before_escaping() -> None:
    escaped = escape_text("a" * 500, max_chars=10)
    assert escaped == "a" * 9 + "…"
    assert len(escape_text("<" * 500, max_chars=10)) == 9 * len("&lt;") + 1


def test_badge_glyphs_cannot_be_forged() -> None:
    assert "✅" not in escape_text("✅ verified")
    assert "🏆" not in escape_text("🏆 leaderboard")


@pytest.mark.parametrize(
    ("value", "ok"),
    [
        ("Idavidrein/gpqa", True),
        ("cais/hle", True),
        ("TIGER-Lab/MMLU-Pro", True),
        ("a/../b", False),
        ("a/b/c", False),
        ("a/b)](https://evil", False),
        ("javascript:alert(1)/x", False),
        ("nobody", False),
    ],
)
def test_only_plain_repo_ids_become_links(value: str, ok: bool) -> None:
    assert is_repo_id(value) is ok
