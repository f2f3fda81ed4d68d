"""Every promise of the docs is either run by CI or marked not runnable, with its reason
(docs/README.md, "Docs are tests"); the marking rules themselves, on small documents."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.docs.blocks import Block, all_blocks, blocks_of, parse_expectation

BLOCKS = all_blocks()


def test_every_block_is_run_or_marked_with_a_reason() -> None:
    problems = [f"{block.where}: {block.problem}" for block in BLOCKS if block.problem]
    assert not problems, "\n".join(problems)


def test_the_docs_have_promises_of_every_kind() -> None:
    runnable = {block.kind for block in BLOCKS if block.expectation is not None}
    assert runnable == {"shell", "workflow", "pre-commit"}


def write(tmp_path: Path, text: str) -> list[Block]:
    """Blocks of a document written under the repository's root (where `blocks_of` reads)."""
    from tests.conftest import REPO_ROOT

    folder = REPO_ROOT / "docs"
    path = folder / f".marking-{tmp_path.name}.md"
    path.write_text(text, encoding="utf-8")
    try:
        return blocks_of(path)
    finally:
        path.unlink()


def test_an_unmarked_block_is_named_with_how_to_mark_it(tmp_path: Path) -> None:
    (block,) = write(tmp_path, "# Title\n\ntext\n\n```sh\nevalbot validate .\n```\n")
    assert block.where.endswith(".md:5")
    assert block.problem is not None
    assert "neither run nor marked" in block.problem
    assert "<!-- not-runnable: why, in a few words -->" in block.problem
    assert "<!-- runs: exit 0, prints" in block.problem


def test_a_marker_without_a_reason_is_refused(tmp_path: Path) -> None:
    (block,) = write(tmp_path, "<!-- not-runnable: -->\n```sh\nmake demo\n```\n")
    assert block.problem == "a not-runnable comment with no reason: say why"


def test_a_marker_must_be_right_above_the_fence(tmp_path: Path) -> None:
    (block,) = write(tmp_path, "<!-- not-runnable: a server -->\n\n```sh\nevalbot serve\n```\n")
    assert block.problem is not None
    assert "neither run nor marked" in block.problem


@pytest.mark.parametrize(
    ("command", "placeholder"),
    [
        ("evalbot validate path/to/model-repo", "path/to/"),
        ("evalbot gate --collection x <model>", "a <...> placeholder"),
        ("export HF_TOKEN=hf_...", "hf_..."),
        ("evalbot validate PATH... [--strict]", "an [--option] synopsis"),
    ],
)
def test_a_placeholder_in_a_runnable_block_is_refused(
    tmp_path: Path, command: str, placeholder: str
) -> None:
    text = f'<!-- runs: exit 0, prints "ok" -->\n```sh\n{command}\n```\n'
    (block,) = write(tmp_path, text)
    assert block.problem is not None
    assert block.problem.startswith(f"{placeholder} in a runnable block")


def test_workflows_and_pre_commit_configurations_are_promises(tmp_path: Path) -> None:
    text = (
        "```yaml\nsteps:\n  - run: evalbot validate .\n```\n\n"
        "```yaml\nrepos:\n  - repo: local\n    hooks: []\n```\n\n"
        "```yaml\nmaintainers: [alice]\n```\n\n"
        "```\nsome output\n```\n"
    )
    workflow, hook, config, bare = write(tmp_path, text)
    assert (workflow.kind, hook.kind, config.kind) == ("workflow", "pre-commit", None)
    assert workflow.problem is not None
    assert hook.problem is not None
    assert config.problem is None
    assert bare.problem is not None
    assert "without a language" in bare.problem


def test_a_console_block_runs_its_commands_and_checks_its_output(tmp_path: Path) -> None:
    text = (
        '<!-- runs: exit 1, prints "2 errors" -->\n```console\n$ evalbot validate \\\n'
        "    record.json\nrecord.json: 2 errors, 0 warnings\n...\n```\n"
    )
    (block,) = write(tmp_path, text)
    assert block.problem is None
    assert block.commands() == "evalbot validate \\\n    record.json\n"
    assert block.shown_output() == ("record.json: 2 errors, 0 warnings",)
    assert block.expectation == parse_expectation('exit 1, prints "2 errors"')


def test_an_expectation_needs_a_status_and_a_line() -> None:
    with pytest.raises(ValueError, match="needs an exit status and an output line"):
        parse_expectation("exit 0")
    assert parse_expectation('exit 2, prints "say \\"no\\"", prints "b"').prints == (
        'say "no"',
        "b",
    )
