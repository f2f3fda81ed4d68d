"""Escaping: any user-supplied string made inert in the comment's markdown, so it cannot mention,
link, inject HTML or markers, break its table cell or pose as a badge (docs/comment.md, "Safety
of what users wrote")."""

from __future__ import annotations

import re
import unicodedata

from bot.report.comment_texts import RESERVED_GLYPHS

ZWSP = "\u200b"
ELLIPSIS = "…"
DEFAULT_MAX_CHARS = 200

#: The characters that shape inline markdown where an escaped string lands (inside a
#: paragraph, heading, list item or table cell): emphasis, code, links and images, table
#: cells, strikethrough, math (`$`), and the escape character itself. Other punctuation is left
#: alone so the raw text stays readable; block starts are handled by `block_start`.
_MARKDOWN_PUNCTUATION = frozenset("\\`*_[]()!|~$#^=")
# A dot before a letter (fuzzy domain links, `www.` links) and a slash next to a slash
# (protocol-relative links), written as character references.
_DOT_BEFORE_LETTER = re.compile(r"\.(?=[^\W\d_])")
_DOUBLE_SLASH = re.compile(r"/(?=/)|(?<=/)/")


def _normalise(text: str) -> str:
    out = []
    for char in text:
        category = unicodedata.category(char)
        if category == "Cf":
            continue  # bidi controls, zero-width characters, soft hyphens, tag characters
        if category in ("Cc", "Zl", "Zp"):
            out.append(" ")  # newlines, tabs, NUL...: one line, one cell
        elif category in ("Cs", "Co", "Cn"):
            out.append("\ufffd")
        else:
            out.append(char)
    cleaned = "".join(out)
    for glyph in RESERVED_GLYPHS:
        cleaned = cleaned.replace(glyph, "?")
    # A stray variation selector left behind a removed glyph is harmless but noisy.
    return cleaned.replace("?\ufe0f", "?")


def truncate(text: str, max_chars: int) -> str:
    if len(text) <= max_chars:
        return text
    return text[: max(0, max_chars - 1)] + ELLIPSIS


_BLOCK_START = re.compile(r"^(?:([-+])|(\d{1,9})([.)]))")


def escape_text(
    value: object, max_chars: int = DEFAULT_MAX_CHARS, *, block_start: bool = False
) -> str:
    """`value` as inert, single-line markdown text, at most `max_chars` visible characters.

    `block_start`: the text opens a block (a list item's content), where `-`, `+` or `1.`
    would start a nested list; their punctuation is escaped too.
    """
    # Stripped: leading spaces after a list marker would open an indented code block.
    text = truncate(_normalise(str(value)).strip(), max_chars)
    out: list[str] = []
    for char in text:
        if char == "&":
            out.append("&amp;")
        elif char == "<":
            out.append("&lt;")
        elif char == ">":
            out.append("&gt;")
        elif char == "@":
            out.append("@" + ZWSP)
        elif char == ":":
            out.append("&#58;")
        elif char in _MARKDOWN_PUNCTUATION:
            out.append("\\" + char)
        else:
            out.append(char)
    escaped = "".join(out)
    escaped = _DOUBLE_SLASH.sub("&#47;", escaped)
    escaped = _DOT_BEFORE_LETTER.sub("&#46;", escaped)
    if block_start:
        escaped = _BLOCK_START.sub(
            lambda m: "\\" + m.group(1) if m.group(1) else m.group(2) + "\\" + m.group(3),
            escaped,
        )
    return escaped


def is_repo_id(value: str) -> bool:
    """A Hub repo id safe to put in a URL path: `owner/name` of the Hub's allowed characters."""
    return re.fullmatch(r"[A-Za-z0-9][\w.-]{0,95}/[\w.-]{1,96}", value) is not None and (
        ".." not in value
    )
