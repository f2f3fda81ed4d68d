"""`datastores:` of `config/bot.yaml`: the dataset repos that are Every Eval Ever datastores.

    datastores:
      evaleval/EEE_datastore:
        versions: ["0.2.0", "0.2.2", "0.3.0"]   # accepted schema versions (default: all shipped)
        warnings_block: false                   # a warning keeps a PR from being ready
        collection: any                          # or `source` (docs/eee.md, "Folders")
        run_limits: {mib: 2048, record_mib: 256, rows: 1000000, seconds: 120}

A PR on a repo named here is checked as a submission (`workers.datastore_pr`); nothing changes
for other dataset repos (benchmarks) or model repos. Every problem names the file, the line and
the fix (`bot.configfiles.ConfigError`). Repo ids compare case-insensitively, as on the Hub.
"""

from __future__ import annotations

from collections.abc import Mapping

from bot.configfiles import ConfigDocument
from bot.eee.runbudget import MIB, RunLimits
from bot.eee.submission import DatastorePolicy
from bot.validation.eee import VERSIONS

FIX = 'see docs/eee.md, "Installing"'
SETTINGS = ("versions", "warnings_block", "collection", "run_limits")
#: `run_limits:` keys, each a positive integer, and the `RunLimits` field it sets.
RUN_LIMITS = {
    "mib": "max_bytes",
    "record_mib": "max_record_bytes",
    "rows": "max_rows",
    "seconds": "max_seconds",
}


def load_datastores(document: ConfigDocument, raw: object) -> dict[str, DatastorePolicy]:
    """Lower-cased repo id -> its policy; raises `ConfigError` on the first problem."""
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        raise document.error(
            "datastores", "`datastores` must map dataset repo ids to their settings", FIX
        )
    found: dict[str, DatastorePolicy] = {}
    for repo_id, settings in raw.items():
        where = f"datastores.{repo_id}"
        if not isinstance(repo_id, str) or repo_id.count("/") != 1 or not all(repo_id.split("/")):
            raise document.error(where, f"{repo_id!r} is not a dataset repo id (owner/name)", FIX)
        found[repo_id.lower()] = _policy(document, where, settings)
    return found


def _policy(document: ConfigDocument, where: str, raw: object) -> DatastorePolicy:
    if raw is None:
        return DatastorePolicy()
    if not isinstance(raw, Mapping):
        raise document.error(where, f"the settings of `{where}` must be a mapping", FIX)
    for name in raw:
        if name not in SETTINGS:
            raise document.error(
                f"{where}.{name}",
                f"unknown datastore setting {name!r}; the settings are {', '.join(SETTINGS)}",
                FIX,
            )
    versions = raw.get("versions", list(VERSIONS))
    if (
        not isinstance(versions, list)
        or not versions
        or not all(isinstance(v, str) and v in VERSIONS for v in versions)
    ):
        raise document.error(
            f"{where}.versions",
            f"`versions` must be a non-empty list of schema versions evalbot ships"
            f" ({', '.join(VERSIONS)})",
            'quote each version, e.g. `versions: ["0.2.2", "0.3.0"]`',
        )
    blocking = raw.get("warnings_block", False)
    if not isinstance(blocking, bool):
        raise document.error(f"{where}.warnings_block", "`warnings_block` must be true or false")
    collection = raw.get("collection", "any")
    run = _run_limits(document, f"{where}.run_limits", raw.get("run_limits"))
    if collection == "any":
        return DatastorePolicy(tuple(versions), blocking, "any", run=run)
    if collection == "source":
        return DatastorePolicy(tuple(versions), blocking, "source", run=run)
    raise document.error(f"{where}.collection", "`collection` must be `any` or `source`", FIX)


def _run_limits(document: ConfigDocument, where: str, raw: object) -> RunLimits:
    """`run_limits:` (docs/eee.md, "Limits"): what one run may read; defaults where unset."""
    if raw is None:
        return RunLimits()
    if not isinstance(raw, Mapping):
        raise document.error(where, "`run_limits` must be a mapping", FIX)
    values: dict[str, int] = {}
    for name, value in raw.items():
        if name not in RUN_LIMITS:
            raise document.error(
                f"{where}.{name}",
                f"unknown run limit {name!r}; the limits are {', '.join(RUN_LIMITS)}",
                FIX,
            )
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise document.error(f"{where}.{name}", f"`{name}` must be a positive integer", FIX)
        values[RUN_LIMITS[name]] = value * MIB if name.endswith("mib") else value
    return RunLimits(**values)
