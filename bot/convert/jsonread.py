"""A framework output's JSON, read by `bot.strictjson` with the converter's rules (NaN read, as
frameworks write it): a duplicate key or a cut-off file is an error naming where (docs/convert.md,
"Nothing dropped without a word"; the fast path: docs/security.md#strict-json)."""

from __future__ import annotations

import json
from typing import Any

from bot.convert.registry import ConvertError
from bot.strictjson import (
    DuplicateKey,
    JsonError,
    JsonReader,
    JsonSyntaxError,
    NotUtf8,
    TooDeep,
)

#: a BOM is skipped, as editors on Windows write one; nesting is bounded by Python alone
OUTPUT_JSON = JsonReader(non_finite=True, bom=True, locate_duplicates=True)


def looks_like_json(content: bytes) -> bool:
    """Whether the bytes start as a JSON object or array would (after blanks and a BOM)."""
    head = content[:4096].lstrip(b"\xef\xbb\xbf \t\r\n")
    return head[:1] in (b"{", b"[")


def read_json(content: bytes, filename: str) -> Any:
    """The parsed JSON of `content`; ConvertError naming `filename`, the line and the column
    of a syntax error, of the end of a truncated file, or of an object with a duplicate key.
    `TooDeep` (nesting deeper than Python reads) is left to the caller, which names the part."""
    try:
        return OUTPUT_JSON.read(content)
    except TooDeep:
        raise
    except DuplicateKey as duplicate:
        at = f" in the object at line {duplicate.line} column {duplicate.column}"
        raise ConvertError(
            f"{filename}: key {json.dumps(duplicate.key)} appears twice"
            f"{at if duplicate.line is not None else ''}; a JSON reader keeps only one of the"
            " two values, so which score is meant cannot be known: fix the output"
        ) from None
    except NotUtf8 as error:
        raise ConvertError(
            f"{filename}: not UTF-8 text (byte {error.byte}); a framework writes its JSON"
            " output as UTF-8"
        ) from None
    except JsonSyntaxError as error:
        raise ConvertError(_syntax_message(filename, error)) from None
    except JsonError as error:  # an integer of thousands of digits
        raise ConvertError(
            f"{filename}: {error.msg}, which evalbot does not read: a framework writes its"
            " scores as plain numbers; convert the output it wrote"
        ) from None


def _syntax_message(filename: str, error: JsonSyntaxError) -> str:
    if error.cut_at is not None:
        line, column = error.cut_at
        return (
            f"{filename}: the JSON ends at line {line} column {column} before it is"
            f" complete ({error.msg}): the file is truncated; convert the complete output"
            " the framework wrote"
        )
    if error.msg == "Extra data":
        return (
            f"{filename}: a second JSON value starts at line {error.line} column"
            f" {error.column} (JSON Lines?): evalbot converts one JSON document per file,"
            " such as an aggregate results file, not per-sample rows"
        )
    return f"{filename}: not valid JSON at line {error.line} column {error.column}: {error.msg}"
