"""`docs_url:` of config/bot.yaml: where the landing page links the deployment's docs."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.botconfig.document import ConfigError
from bot.botconfig.files import load_bot_config


def test_docs_url_is_read_from_the_bot_config(tmp_path: Path) -> None:
    path = tmp_path / "bot.yaml"
    assert load_bot_config(path).docs_url is None  # no file
    path.write_text("maintainers: []\n")
    assert load_bot_config(path).docs_url is None
    path.write_text("maintainers: []\ndocs_url: https://docs.example/evalbot \n")
    assert load_bot_config(path).docs_url == "https://docs.example/evalbot"
    load_bot_config(path)  # a key of the file, not a typo the workers refuse


@pytest.mark.parametrize("value", ["docs.example", "ftp://docs.example", "[a]", "3"])
def test_a_docs_url_that_is_no_web_address_names_the_line(tmp_path: Path, value: str) -> None:
    path = tmp_path / "bot.yaml"
    path.write_text(f"maintainers: []\ndocs_url: {value}\n")
    with pytest.raises(ConfigError, match=r"bot\.yaml:2: `docs_url` must be an http or https URL"):
        load_bot_config(path)
