"""`source_datastores:` of `config/bot.yaml`: the datastores whose records a result's
`source.url` is checked against (docs/comment.md#sources), for the workers and the CLI: one
reader, so the bot and `evalbot validate` trust the same datastores.

Absent: EEE's own datastore (`bot.eee.links.DEFAULT_DATASTORES`); `[]`: no source is checked.
"""

from __future__ import annotations

from pathlib import Path

from bot.configfiles import ConfigDocument, read_config
from bot.eee.links import DEFAULT_DATASTORES

FIX = 'see docs/comment.md, "Sources"'


def load_source_datastores(bot_config: Path) -> tuple[str, ...]:
    """The datastores `bot_config` trusts; the default when the file does not exist. Raises
    `ConfigError` naming the file and line of a bad value."""
    if not bot_config.exists():
        return DEFAULT_DATASTORES
    return source_datastores_of(read_config(bot_config, fix=FIX))


def source_datastores_of(document: ConfigDocument) -> tuple[str, ...]:
    data = document.data if isinstance(document.data, dict) else {}
    if "source_datastores" not in data:
        return DEFAULT_DATASTORES
    raw = data["source_datastores"]
    if not isinstance(raw, list) or not all(
        isinstance(repo, str) and repo.count("/") == 1 and all(repo.split("/")) for repo in raw
    ):
        raise document.error(
            "source_datastores",
            "`source_datastores` must be a list of owner/name dataset repo ids",
            "write `source_datastores: [evaleval/EEE_datastore]`, or `[]` to check no source",
        )
    return tuple(raw)
