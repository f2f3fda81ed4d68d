"""Converters: framework outputs in, `.eval_results` entries out (docs/convert.md).

Pure like `bot.validation`: bytes and dicts in, entries and diagnostics out; files are read and
written at the CLI edge (`bot.cli.convert`). Each framework has one adapter module under
`bot.convert.adapters`, registered by the `@adapter` decorator; third-party adapters arrive
through the `evalbot.converters` entry-point group. A mapping table (shipped in
`bot/data/convert/`, extended by the user's files) says which framework task and metric is
which Hub benchmark task and metric; nothing is guessed.

`entries_from` is the one call other commands (`evalbot submit`) need.
"""

from __future__ import annotations

from bot.convert.api import Conversion, entries_from

__all__ = ["Conversion", "entries_from"]
