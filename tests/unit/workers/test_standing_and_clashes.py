"""The PR comment's collection standing: "after" is main with the PR merged into it."""

from __future__ import annotations

from bot.botconfig.sections import CampaignConfig
from bot.collections.aggregate import Status
from bot.collections.model import Scope
from bot.hub.pulls import PrStatus, PullRequest
from bot.validation.model import FileReport
from bot.validation.policy import DEFAULT_POLICY
from bot.validation.validate import validate_results_files
from tests.unit.collections.helpers import MemorySource
from workers.standing_and_clashes import CampaignInputs, _standing

GATE = b"""\
name: two
category: x
pass_criteria: {threshold: 50}
benchmarks:
  - {id: Idavidrein/gpqa, task_id: diamond, scale: percent}
  - {id: TIGER-Lab/MMLU-Pro, task_id: mmlu_pro, scale: percent}
"""
GPQA = "- dataset: {id: Idavidrein/gpqa, task_id: diamond}\n  value: 60\n"
MMLU = "- dataset: {id: TIGER-Lab/MMLU-Pro, task_id: mmlu_pro}\n  value: 70\n"
CONFIG = CampaignConfig(repos=(("alice/*", ("two",)),), files={"two": (Scope.USER, GATE)})


def _reports(files: dict[str, str]) -> list[FileReport]:
    encoded = {path: text.encode() for path, text in files.items()}
    return validate_results_files(encoded, MemorySource())


def _inputs(changed: dict[str, str], removed: tuple[str, ...] = ()) -> CampaignInputs:
    pr = PullRequest(
        "alice/model",
        9,
        True,
        PrStatus.OPEN,
        "f" * 40,
        result_files=tuple(changed),
        removed_result_files=removed,
    )
    return CampaignInputs(
        pr, "f" * 40, _reports(changed), MemorySource(), DEFAULT_POLICY, "https://hub"
    )


def test_a_pr_removing_an_entry_from_a_file_it_changes_fails_after() -> None:
    """The PR's files used to be laid over main's per benchmark, so the entry it deleted from
    `results.yaml` still counted: "pass → pass" while the merged repo fails."""
    main = _reports({".eval_results/results.yaml": GPQA + MMLU})
    standing = _standing("two", CONFIG, _inputs({".eval_results/results.yaml": GPQA}), main)
    assert standing.before is not None
    assert standing.after is not None
    assert standing.before.passed
    assert not standing.after.passed
    assert standing.after.benchmarks[1].status is Status.MISSING


def test_a_pr_deleting_a_file_loses_its_results_after() -> None:
    main = _reports({".eval_results/gpqa.yaml": GPQA, ".eval_results/mmlu_pro.yaml": MMLU})
    inputs = _inputs({}, removed=(".eval_results/mmlu_pro.yaml",))
    standing = _standing("two", CONFIG, inputs, main)
    assert standing.after is not None
    assert standing.after.benchmarks[1].status is Status.MISSING


def test_a_pr_adding_a_result_with_other_notes_is_ambiguous_after() -> None:
    main = _reports({".eval_results/gpqa.yaml": GPQA, ".eval_results/mmlu_pro.yaml": MMLU})
    tools = GPQA.replace("60", "20") + "  notes: tools\n"
    standing = _standing("two", CONFIG, _inputs({".eval_results/gpqa_tools.yaml": tools}), main)
    assert standing.after is not None
    assert standing.after.benchmarks[0].status is Status.AMBIGUOUS
    assert not standing.after.passed
