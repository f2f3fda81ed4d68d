"""Escaping: any user-supplied string made inert in the comment's markdown.

Everything a PR author controls (dataset ids, task ids, metric ids, values, notes, file paths,
diagnostic messages that quote them) passes through `escape_text` before it reaches the
comment. The Hub renders comments as GitHub-flavoured markdown with some HTML and mentions, so
a hostile string could otherwise ping people, inject HTML, links or images, forge a badge or
the bot's hidden markers, or break the table it sits in. After `escape_text`:

- no newline or control character, no leading or trailing whitespace: the string stays on
  its line and in its table cell, and cannot open an indented code block in a list item;
  format characters (Unicode category Cf: bidi overrides and marks, zero-width characters,
  soft hyphens, tag characters) are dropped: they could disguise text;
- `<`, `>` and `&` are HTML entities: no tag, no comment (`<!--`), no autolink `<http://…>`,
  no entity trick (`&#64;` for `@`);
- the markdown punctuation that matters inline is backslash-escaped (CommonMark: a backslash
  before ASCII punctuation makes it literal): no emphasis, link, image, code span, math, and
  `|` cannot end a table cell (GFM honours `\\|` in tables);
- `@` is followed by a zero-width space: no mention (`@user`) and no email autolink (a
  mention is found in the rendered text, where an entity would be decoded: hence the space);
- every `:`, a `.` before a letter and each `/` of a `//` are written as numeric character
  references (`&#58;`, `&#46;`, `&#47;`): a reader sees the characters, but no autolinker
  sees a scheme (`https:`, `mailto:`, `javascript:`), a protocol-relative `//host`, a domain
  (`evil.com`, `www.x.org`, `README.md`: `.md` is a TLD) or an emoji shortcode (`:trophy:`
  posing as a badge). A zero-width space is not enough there: linkify-it reads it as part of
  a host name, and browsers drop it from one (`//evil.\u200bcom` links to evil.com);
- the glyphs the comment uses for badges and verdicts are replaced, so a note cannot pose as
  a badge;
- the length is capped (before escaping) with an ellipsis.

The visible text is what the user wrote, minus those glyphs and invisible characters.
"""

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
