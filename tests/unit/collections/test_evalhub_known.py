"""The `--map` values the shipped mapping table proposes for EvalHub's real collections."""

from __future__ import annotations

from bot import packaged_defaults
from bot.collections.evalhub import HubTarget
from bot.collections.evalhub_known import propose
from bot.convert.mapping import parse_mappings
from tests.unit.collections.helpers import ROOT

SAMPLES = ROOT / "tests" / "samples" / "real-world" / "eval-hub"
LEADERBOARD = (SAMPLES / "collection.leaderboard-v2.yaml").read_bytes()
SAFETY = (SAMPLES / "collection.safety-and-fairness-v1.yaml").read_bytes()
TABLE = parse_mappings("mappings.yaml", packaged_defaults.mappings_file().read_bytes())


def test_the_table_knows_five_of_the_leaderboards_six_benchmarks() -> None:
    proposals = propose(LEADERBOARD, TABLE)
    known = {key: p.known for key, p in proposals.items() if p.known is not None}
    assert known == {
        "leaderboard_ifeval": HubTarget(
            "wis-k/instruction-following-eval", "ifeval", "inst_level_strict_acc"
        ),
        "leaderboard_bbh": HubTarget("SaylorTwift/bbh", "bbh"),
        "leaderboard_mmlu_pro": HubTarget("TIGER-Lab/MMLU-Pro", "mmlu_pro"),
        "leaderboard_musr": HubTarget("TAUR-Lab/MuSR", "musr"),
        "leaderboard_math_hard": HubTarget("DigitalLearningGmbH/MATH-lighteval", "math_hard"),
    }
    assert proposals["leaderboard_ifeval"].flag() == (
        "--map leaderboard_ifeval=wis-k/instruction-following-eval:ifeval:inst_level_strict_acc"
    )
    # EvalHub gates MMLU-Pro on acc_norm, which lm-eval's leaderboard task does not report.
    assert "`acc_norm` is not one the table maps" in (proposals["leaderboard_mmlu_pro"].note or "")


def test_a_group_gets_its_tasks_as_candidates_not_a_choice() -> None:
    gpqa = propose(LEADERBOARD, TABLE)["leaderboard_gpqa"]
    assert gpqa.known is None
    assert {target.task_id for target in gpqa.candidates} == {"diamond", "main", "extended"}
    assert {target.dataset for target in gpqa.candidates} == {"Idavidrein/gpqa"}


def test_several_targets_by_metric_are_chosen_by_evalhubs_metric() -> None:
    text = LEADERBOARD.replace(b"inst_level_strict_acc", b"prompt_level_loose_acc")
    ifeval = propose(text, TABLE)["leaderboard_ifeval"]
    assert ifeval.known == HubTarget(
        "wis-k/instruction-following-eval", "ifeval", "prompt_level_loose_acc"
    )
    unknown_metric = LEADERBOARD.replace(b"inst_level_strict_acc", b"f1")
    ambiguous = propose(unknown_metric, TABLE)["leaderboard_ifeval"]
    assert ambiguous.known is None
    assert len(ambiguous.candidates) == 4


def test_a_provider_evalbot_does_not_convert_proposes_nothing() -> None:
    other = LEADERBOARD.replace(b"lm_evaluation_harness", b"garak")
    assert propose(other, TABLE) == {}
    assert propose(b"not: [a, collection", TABLE) == {}
    # The safety collection's tasks (truthfulqa_mc1, toxigen...) have no row.
    assert all(p.known is None for p in propose(SAFETY, TABLE).values())
