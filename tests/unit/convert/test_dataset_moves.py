"""A mapping row accepts a former home of its dataset for the framework versions that recorded
it (`former_datasets`, docs/convert.md#dataset-moves); a move the row does not name stays
refused.

No lm-eval results file of the Open LLM Leaderboard era (lm-eval 0.4.4 to 0.4.7, when the
`leaderboard_math_*_hard` tasks read `lighteval/MATH-Hard`) could be traced to a public
repository and commit, so the run is derived here, as `test_leaderboard_v2.py` derives its own,
from the real lm-eval file of `tests/samples/real-world/lm-eval/`, with what lm-eval 0.4.5
writes instead of what 0.4.9.2 does, read from EleutherAI/lm-evaluation-harness at tag v0.4.5:

- `configs[task]`: `lm_eval/tasks/leaderboard/math/_template_yaml` (`dataset_path:
  lighteval/MATH-Hard`, `test_split: test`, `num_fewshot: 4`, `metadata.version: 1.0`) and the
  subject files (`math_algebra.yaml`: `dataset_name: algebra`, `task:
  leaderboard_math_algebra_hard`; the other six alike), as `Task.dump_config` writes them;
- `versions`: 1.0 (that `metadata.version`); `group_subtasks` from `_leaderboard_math.yaml`;
- no `lm_eval_version`: lm-eval writes it only since "add __version__" (#2808, commit
  fa1ce2c6, March 2025, after 0.4.8); 0.4.5's `evaluator.simple_evaluate` writes `config`,
  `git_hash` and `date`, its `add_env_info` `pretty_env_info`, `transformers_version` and
  `upper_git_hash`, which the real file's keys of the same names stand for.

The values are EleutherAI/pythia-1b's on the Open LLM Leaderboard v2 (as in
`test_leaderboard_v2.py`); the sample counts are the Level 5 problems of MATH's test split per
subject (1,324 in all), of which those values are exact fractions.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bot.adapters.benchmarks_dir import DirectoryBenchmarkSource
from bot.convert import entries_from
from bot.convert.mapping import MappingError, parse_mappings

ROOT = Path(__file__).parents[3]
REAL_LM_EVAL = ROOT / "tests/samples/real-world/lm-eval/results_2026-01-21T03-44-18.458309.json"
EXAMPLES = DirectoryBenchmarkSource(ROOT / "examples" / "benchmarks")
SHIPPED = parse_mappings(
    "bot/data/convert/mappings.yaml", (ROOT / "bot/data/convert/mappings.yaml").read_bytes()
)
MOVED = "DigitalLearningGmbH/MATH-lighteval"

#: subject (`dataset_name`) -> (lm-eval task, Level 5 test problems, pythia-1b's exact_match)
SUBJECTS: dict[str, tuple[str, int, float]] = {
    "algebra": ("leaderboard_math_algebra_hard", 307, 0.006514657980456026),
    "counting_and_probability": ("leaderboard_math_counting_and_prob_hard", 123, 0.0),
    "geometry": ("leaderboard_math_geometry_hard", 132, 0.0),
    "intermediate_algebra": (
        "leaderboard_math_intermediate_algebra_hard",
        280,
        0.0035714285714285713,
    ),
    "number_theory": ("leaderboard_math_num_theory_hard", 154, 0.0),
    "prealgebra": ("leaderboard_math_prealgebra_hard", 193, 0.0051813471502590676),
    "precalculus": ("leaderboard_math_precalculus_hard", 135, 0.0),
}
#: the task id each lm-eval task maps to in the proposed eval.yaml
TASK_IDS = {
    "leaderboard_math_algebra_hard": "algebra_hard",
    "leaderboard_math_counting_and_prob_hard": "counting_and_probability_hard",
    "leaderboard_math_geometry_hard": "geometry_hard",
    "leaderboard_math_intermediate_algebra_hard": "intermediate_algebra_hard",
    "leaderboard_math_num_theory_hard": "number_theory_hard",
    "leaderboard_math_prealgebra_hard": "prealgebra_hard",
    "leaderboard_math_precalculus_hard": "precalculus_hard",
}


def lm_eval_0_4_5_run(
    dataset_path: str = "lighteval/MATH-Hard", lm_eval_version: str | None = None
) -> bytes:
    """The leaderboard MATH run as lm-eval 0.4.5 writes it (see the module docstring)."""
    data: dict[str, Any] = json.loads(REAL_LM_EVAL.read_bytes())
    data.pop("lm_eval_version")
    if lm_eval_version is not None:
        data["lm_eval_version"] = lm_eval_version
    data["results"] = {}
    data["configs"] = {}
    data["versions"] = {"leaderboard_math_hard": "N/A"}
    data["n-shot"] = {}
    data["higher_is_better"] = {}
    data["n-samples"] = {}
    for subject, (task, count, value) in SUBJECTS.items():
        data["results"][task] = {
            "alias": f" - {task}",
            "exact_match,none": value,
            "exact_match_stderr,none": "N/A",
        }
        data["configs"][task] = {
            "task": task,
            "group": ["leaderboard_math_hard"],
            "dataset_path": dataset_path,
            "dataset_name": subject,
            "dataset_kwargs": {"trust_remote_code": True},
            "training_split": "train",
            "test_split": "test",
            "output_type": "generate_until",
            "num_fewshot": 4,
            "metric_list": [
                {"metric": "exact_match", "aggregation": "mean", "higher_is_better": True}
            ],
            "metadata": {"version": 1.0},
        }
        data["versions"][task] = 1.0
        data["n-shot"][task] = 4
        data["higher_is_better"][task] = {"exact_match": True}
        data["n-samples"][task] = {"original": count, "effective": count}
    data["group_subtasks"] = {"leaderboard_math_hard": [task for task, _, _ in SUBJECTS.values()]}
    return json.dumps(data, indent=2).encode()


def test_a_leaderboard_era_run_on_the_former_dataset_converts() -> None:
    """Was: every subtask refused, "the output says it ran on dataset `lighteval/MATH-Hard`,
    not `DigitalLearningGmbH/MATH-lighteval`"."""
    conversion = entries_from(
        lm_eval_0_4_5_run(), filename="results.json", benchmarks=EXAMPLES, mappings=SHIPPED
    )
    assert conversion.problems == []
    assert conversion.ok()
    cells = {
        entry["dataset"]["task_id"]: entry["value"]
        for entry in conversion.entries
        if entry["dataset"]["id"] == MOVED
    }
    assert cells == {
        TASK_IDS[task]: pytest.approx(value * 100) for task, _, value in SUBJECTS.values()
    }
    # the former dataset's revision is never written as the benchmark's
    assert all("revision" not in entry["dataset"] for entry in conversion.entries)


def test_a_former_path_the_row_does_not_name_stays_refused() -> None:
    conversion = entries_from(
        lm_eval_0_4_5_run("hendrycks/competition_math"),
        filename="results.json",
        benchmarks=EXAMPLES,
        mappings=SHIPPED,
    )
    assert not conversion.ok()
    assert conversion.entries == []
    assert len(conversion.problems) == len(SUBJECTS)
    assert all(
        f"dataset `hendrycks/competition_math`, not `{MOVED}`" in problem
        for problem in conversion.problems
    )


def test_the_former_path_recorded_by_a_version_after_the_move_is_refused() -> None:
    """A run that records its version is held to the versions the row names."""
    conversion = entries_from(
        lm_eval_0_4_5_run(lm_eval_version="0.4.9.2"),
        filename="results.json",
        benchmarks=EXAMPLES,
        mappings=SHIPPED,
    )
    assert not conversion.ok()
    assert conversion.entries == []
    assert (
        "with lm-eval 0.4.9.2, while the row accepts that former home" in (conversion.problems[0])
    )
    assert "only from lm-eval <0.4.8,>=0.4.4" in conversion.problems[0]


def test_a_version_inside_the_range_is_accepted() -> None:
    conversion = entries_from(
        lm_eval_0_4_5_run(lm_eval_version="0.4.7"),
        filename="results.json",
        benchmarks=EXAMPLES,
        mappings=SHIPPED,
    )
    assert conversion.ok()


ROW = """mappings:
  - framework: lm-eval
    task: t
    metric: "acc,none"
    benchmark: Idavidrein/gpqa
    task_id: diamond
    scale: percent
    former_datasets:
{items}
"""


@pytest.mark.parametrize(
    ("items", "message"),
    [
        (
            '      - {dataset: a/b, versions: "<=0.4.5"}',
            "mappings.yaml:9: former dataset: `reason` must be a non-empty text",
        ),
        (
            '      - {dataset: a/b, versions: "0.4.5 or so", reason: moved}',
            "mappings.yaml:9: former dataset: `versions: 0.4.5 or so` is not a version range",
        ),
        (
            '      - {dataset: ab, versions: "<0.5", reason: moved}',
            "mappings.yaml:9: former dataset: `dataset` must be `org/name`",
        ),
        (
            '      - {dataset: a/b, versions: "<0.5", reason: moved, when: 2024}',
            "mappings.yaml:9: former dataset: unknown key `when`",
        ),
        ("      []", "mappings.yaml:8: `former_datasets` must list"),
    ],
)
def test_a_broken_former_dataset_names_its_line(items: str, message: str) -> None:
    with pytest.raises(MappingError) as raised:
        parse_mappings("mappings.yaml", ROW.format(items=items).encode())
    assert message in str(raised.value)
