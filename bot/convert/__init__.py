"""Converters: framework outputs in, `.eval_results` entries out (docs/convert.md). Pure: files
are read and written by `bot.cli.convert`; `entries_from` is the call other commands need."""

from __future__ import annotations

from bot.convert.api import Conversion, entries_from

__all__ = ["Conversion", "entries_from"]
