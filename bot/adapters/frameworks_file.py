"""The user's refreshed copy of the Hub's evaluation-framework list, in the user's cache folder
(docs/validate.md, "Evaluation frameworks")."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import platformdirs

from bot.validation import frameworks
from bot.validation.frameworks import FrameworkList, FrameworkListError

FILE_NAME = "evaluation_frameworks.json"


def cache_dir() -> Path:
    """evalbot's folder in the user's cache."""
    return Path(platformdirs.user_cache_dir("evalbot", appauthor=False))


def user_list_path() -> Path:
    return cache_dir() / FILE_NAME


def load_user_list() -> FrameworkList | None:
    """The refreshed copy, or None when there is none (or it cannot be read: said on stderr)."""
    path = user_list_path()
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except OSError as error:
        print(f"evalbot: {path}: {error.strerror}; using the shipped list", file=sys.stderr)
        return None
    try:
        return FrameworkList.from_json(json.loads(text))
    except (ValueError, FrameworkListError) as error:
        print(
            f"evalbot: {path}: not a framework list ({error}); using the shipped list"
            " (`evalbot frameworks refresh` writes it again)",
            file=sys.stderr,
        )
        return None


def use_freshest() -> Path | None:
    """Check against the user's refreshed list when it is at least as recent as the shipped
    one; returns its path then, else None."""
    fresher = load_user_list()
    if fresher is None or fresher.refreshed < frameworks.KNOWN.refreshed:
        return None
    frameworks.use(fresher)
    return user_list_path()
