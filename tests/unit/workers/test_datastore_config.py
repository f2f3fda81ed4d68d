"""`datastores:` of `config/bot.yaml` (`bot.botconfig.sections`): read, checked, refused by line."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.botconfig.document import ConfigError
from bot.botconfig.files import load_bot_config
from bot.eee.submission import DatastorePolicy


def load(tmp_path: Path, text: str) -> dict[str, DatastorePolicy]:
    path = tmp_path / "bot.yaml"
    path.write_text(text)
    return dict(load_bot_config(path).datastores)


def test_datastores_with_their_settings(tmp_path: Path) -> None:
    found = load(
        tmp_path,
        "datastores:\n"
        "  EvalEval/EEE_datastore:\n"
        '    versions: ["0.2.2", "0.3.0"]\n'
        "    warnings_block: true\n"
        "    collection: source\n"
        "  alice/store: {}\n",
    )
    assert found == {
        "evaleval/eee_datastore": DatastorePolicy(("0.2.2", "0.3.0"), True, "source"),
        "alice/store": DatastorePolicy(),
    }
    assert load(tmp_path, "maintainers: []\n") == {}


@pytest.mark.parametrize(
    ("text", "line", "words"),
    [
        ("datastores: [a/b]\n", 1, "must map dataset repo ids"),
        ("datastores:\n  not-a-repo: {}\n", 2, "not a dataset repo id"),
        ("datastores:\n  a/b:\n    versions: [0.3]\n", 3, "schema versions evalbot ships"),
        ('datastores:\n  a/b:\n    versions: ["0.4.0"]\n', 3, "schema versions evalbot ships"),
        ("datastores:\n  a/b:\n    warnings_block: yes\n", 3, "true or false"),
        ("datastores:\n  a/b:\n    collection: folder\n", 3, "`any` or `source`"),
        ("datastores:\n  a/b:\n    version: []\n", 3, "unknown datastore setting"),
    ],
)
def test_a_broken_datastore_setting_stops_the_start_naming_its_line(
    tmp_path: Path, text: str, line: int, words: str
) -> None:
    with pytest.raises(ConfigError) as caught:
        load(tmp_path, text)
    message = str(caught.value)
    assert f"bot.yaml:{line}" in message or f"line {line}" in message, message
    assert words in message
