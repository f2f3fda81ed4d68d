"""Resource caps of the validator, in one place so the CLI, the workers and the docs agree
(docs/validate.md, "Limits")."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Limits:
    max_file_bytes: int = 1024 * 1024  # 1 MiB, checked before any parsing
    max_entries: int = 10_000  # result entries per file
    max_depth: int = 32  # container levels; the top-level list is level 1
    max_alias_nodes: int = 100_000  # nodes that alias expansion may add, counted while loading
    max_files: int = 100  # result files per PR (or per `evalbot validate` run on one repo)


DEFAULT_LIMITS = Limits()
