"""`evalbot --help`: the commands by who uses them, with an example each and the docs."""

from __future__ import annotations

import pytest

from bot.cli import HELP_GROUPS, main


def test_help_groups_the_commands_by_who_uses_them(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    assert out.startswith("usage: evalbot [-h] [--version] COMMAND ...")
    starts = [out.index(f"\n{title}:\n") for title, _names, _example in HELP_GROUPS]
    assert starts == sorted(starts)
    assert [title.split(",")[0] for title, _n, _e in HELP_GROUPS] == [
        "model owners",
        "deployers",
        "evaluation frameworks and datastores",
        "operators",
        "everyone",
    ]
    for title, names, example in HELP_GROUPS:
        block = out[out.index(f"\n{title}:\n") :].split("\n\n")[0]
        for name in names:
            assert f"\n  {name} " in block, (title, name)
        assert f"  e.g. {example}" in block
    assert "{validate,eee," not in out  # argparse's flat list is gone
    assert "\ndocumentation: " in out


def test_each_commands_usage_still_names_it(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["web", "--help"])
    assert capsys.readouterr().out.startswith("usage: evalbot web [-h]")
