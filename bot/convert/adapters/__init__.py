"""The built-in adapters; importing this package registers them (`bot.convert.registry`)."""

from __future__ import annotations

from bot.convert.adapters import eee, evalscope, inspect_ai, lighteval, lm_eval

__all__ = ["eee", "evalscope", "inspect_ai", "lighteval", "lm_eval"]
