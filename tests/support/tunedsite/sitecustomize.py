"""Imported by Python as a test's child process starts (`tests.support.tuning`): sets the
product constants named in `TEST_TUNED_CONSTANTS` before the entry point imports anything."""

from __future__ import annotations

import importlib
import json
import os
import sys


def _apply(raw: str) -> None:
    for dotted, value in json.loads(raw).items():
        module_name, _, name = dotted.rpartition(".")
        module = importlib.import_module(module_name)
        current = getattr(module, name, None)
        if current is None or type(current) not in (int, float, str):
            sys.exit(f"tests/support/tunedsite: {dotted} is not a constant of the product")
        setattr(module, name, type(current)(value))


_apply(os.environ.get("TEST_TUNED_CONSTANTS", "") or "{}")
