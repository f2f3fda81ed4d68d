"""`datastores:` of `config/bot.yaml`: the dataset repos that are Every Eval Ever datastores.

    datastores:
      evaleval/EEE_datastore:
        versions: ["0.2.0", "0.2.2", "0.3.0"]   # accepted schema versions (default: all shipped)
        warnings_block: false                   # a warning keeps a PR from being ready
        collection: any                          # or `source` (docs/eee.md, "Folders")

A PR on a repo named here is checked as a submission (`workers.datastore_pr`); nothing changes
for other dataset repos (benchmarks) or model repos. Every problem names the file, the line and
the fix (`bot.configfiles.ConfigError`). Repo ids compare case-insensitively, as on the Hub.
"""

from __future__ import annotations

from collections.abc import Mapping

from bot.configfiles import ConfigDocument
from bot.eee.submission import DatastorePolicy
from bot.validation.eee import VERSIONS

FIX = 'see docs/eee.md, "Installing"'
SETTINGS = ("versions", "warnings_block", "collection")


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
    if collection == "any":
        return DatastorePolicy(tuple(versions), blocking, "any")
    if collection == "source":
        return DatastorePolicy(tuple(versions), blocking, "source")
    raise document.error(f"{where}.collection", "`collection` must be `any` or `source`", FIX)
