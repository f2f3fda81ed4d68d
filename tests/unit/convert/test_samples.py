"""`bot.convert.samples`: per-sample logs into EEE instance rows that the schema accepts."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path
from typing import Any

import pytest

from bot.convert.samples import (
    MAX_SAMPLE_BYTES,
    SamplesError,
    inspect_rows,
    lm_eval_rows,
    lm_eval_task,
)
from bot.validation.eee import VERSIONS, validate_eee_file
from tests.conftest import REPO_ROOT

INSPECT = REPO_ROOT / "tests" / "samples" / "convert" / "inspect-ai"
REAL_INSPECT = REPO_ROOT / "tests" / "samples" / "real-world" / "inspect-ai"


def valid_rows(rows: list[dict[str, Any]], version: str = "0.3.0") -> list[str]:
    """The schema's findings on `rows` with the ids a record gives them."""
    lines = [
        json.dumps(
            {
                "schema_version": version,
                "evaluation_id": "org/model/1/0",
                "model_id": "org/model",
                "evaluation_name": "task",
                **row,
            }
        )
        for row in rows
    ]
    report = validate_eee_file("rows.jsonl", "\n".join(lines).encode())
    return [d.message for d in report.diagnostics]


def test_the_task_comes_from_the_file_name_of_the_same_run() -> None:
    results = "results_2026-01-21T03-44-18.458309.json"
    assert lm_eval_task(
        results, "samples_math_perturbed_full_2026-01-21T03-44-18.458309.jsonl"
    ) == ("math_perturbed_full")
    assert lm_eval_task(results, "samples_gsm8k_2025-01-01T00-00-00.000000.jsonl") is None
    assert lm_eval_task(results, "results_2026-01-21T03-44-18.458309.json") is None


def test_a_multiple_choice_document_gives_the_choice_ranked_first() -> None:
    sample = {
        "doc_id": 3,
        "target": 1,
        "arguments": {
            "gen_args_0": {"arg_0": "Q: 2+2?\nA:", "arg_1": " 3"},
            "gen_args_1": {"arg_0": "Q: 2+2?\nA:", "arg_1": " 4"},
        },
        "resps": [[[-2.5, False]], [[-0.1, True]]],
        "filtered_resps": [[-2.5, False], [-0.1, True]],
        "filter": "none",
        "metrics": ["acc", "acc_norm"],
        "acc": 1.0,
        "acc_norm": 1.0,
    }
    (row,) = lm_eval_rows(json.dumps(sample).encode() + b"\n\n", "samples_x_1.jsonl")
    assert row["sample_id"] == "3"
    assert row["input"] == {"raw": "Q: 2+2?\nA:", "reference": ["1"], "choices": ["3", "4"]}
    assert row["output"] == {"raw": ["4"]}
    assert row["evaluation"] == {"score": 1.0, "is_correct": True}
    for version in VERSIONS:
        assert valid_rows([row], version) == []


def test_a_broken_line_is_named_with_its_file_and_line() -> None:
    content = b'{"doc_id": 0, "metrics": []}\n{"doc_id": 1,\n'
    with pytest.raises(SamplesError, match=r"^samples_x_1\.jsonl:2"):
        lm_eval_rows(content, "samples_x_1.jsonl")
    with pytest.raises(SamplesError, match=r"samples_x_1\.jsonl:1: not a JSON object"):
        lm_eval_rows(b"[1, 2]\n", "samples_x_1.jsonl")


def test_a_non_finite_metric_is_not_a_score() -> None:
    sample = {"doc_id": 0, "target": "a", "resps": [["a"]], "metrics": ["em"], "em": float("nan")}
    (row,) = lm_eval_rows(json.dumps(sample).encode(), "samples_x_1.jsonl")
    assert row["evaluation"] == {"score": 0.0, "is_correct": False}
    assert valid_rows([row]) == []


@pytest.mark.parametrize(
    "path",
    [
        *sorted(p for p in INSPECT.iterdir() if p.suffix in (".json", ".eval")),
        REAL_INSPECT / "data_intercode_ctf_local_path.json",
    ],
    ids=lambda p: p.name,
)
def test_every_real_inspect_log_gives_rows_the_schema_accepts(path: Path) -> None:
    rows = inspect_rows(path.read_bytes(), path.name)
    assert rows
    assert valid_rows(rows) == []


def test_inspect_scores_and_answers() -> None:
    """C/I scores, the scorer's answer as the extracted value, token usage kept."""
    rows = inspect_rows((INSPECT / "data_pubmedqa_gpt4o_mini.json").read_bytes(), "log.json")
    first = rows[0]
    assert first["sample_id"] == "12377809"
    assert first["input"]["reference"] == ["A"]
    assert first["input"]["choices"] == ["yes", "no", "maybe"]
    assert first["evaluation"]["score"] == 1.0
    assert first["evaluation"]["is_correct"] is True
    assert first["answer_attribution"][0]["extracted_value"] == "A"
    assert first["answer_attribution"][0]["extraction_method"] == "choice"
    assert first["token_usage"]["total_tokens"] == 366


def agent_sample() -> dict[str, Any]:
    return {
        "id": "ctf-1",
        "epoch": 1,
        "input": [{"role": "user", "content": "find the flag"}],
        "target": "flag{x}",
        "messages": [
            {"role": "user", "content": "find the flag"},
            {
                "role": "assistant",
                "content": [
                    {"type": "reasoning", "reasoning": "look"},
                    {"type": "text", "text": ""},
                ],
                "tool_calls": [{"id": "t1", "function": "bash", "arguments": {"cmd": "ls"}}],
            },
            {"role": "tool", "content": "flag.txt", "tool_call_id": "t1"},
            {"role": "assistant", "content": "flag{x}"},
        ],
        "output": {"choices": [{"message": {"content": "flag{x}"}, "stop_reason": "stop"}]},
        "scores": {"includes": {"value": "C", "answer": "flag{x}"}},
    }


def test_an_agentic_sample_keeps_its_messages_and_tool_calls() -> None:
    (row,) = inspect_rows(json.dumps({"samples": [agent_sample()]}).encode(), "log.json")
    assert row["interaction_type"] == "agentic"
    assert "output" not in row
    assert [m["role"] for m in row["messages"]] == ["user", "assistant", "tool", "assistant"]
    assert row["messages"][1]["tool_calls"] == [
        {"id": "t1", "name": "bash", "arguments": {"cmd": '"ls"'}}
    ]
    assert row["messages"][1]["reasoning_trace"] == "look"
    assert row["messages"][2]["tool_call_id"] == ["t1"]
    assert row["evaluation"] == {
        "score": 1.0,
        "is_correct": True,
        "num_turns": 4,
        "tool_calls_count": 1,
    }
    assert valid_rows([row]) == []


def archive(members: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zipped:
        for name, content in members.items():
            zipped.writestr(name, content)
    return buffer.getvalue()


def test_an_eval_archive_is_read_sample_by_sample_in_order() -> None:
    second, first = agent_sample(), agent_sample()
    second["id"], first["id"] = 10, 2
    content = archive(
        {
            "header.json": b"{}",
            "samples/10_epoch_1.json": json.dumps(second).encode(),
            "samples/2_epoch_1.json": json.dumps(first).encode(),
        }
    )
    assert [row["sample_id"] for row in inspect_rows(content, "log.eval")] == ["2", "10"]


def test_an_oversized_or_broken_archive_member_is_named() -> None:
    big = archive({"samples/1_epoch_1.json": b" " * (MAX_SAMPLE_BYTES + 1)})
    with pytest.raises(SamplesError, match=r"log\.eval: samples/1_epoch_1\.json is .* over"):
        inspect_rows(big, "log.eval")
    broken = archive({"samples/1_epoch_1.json": b"{"})
    with pytest.raises(SamplesError, match=r"log\.eval: samples/1_epoch_1\.json"):
        inspect_rows(broken, "log.eval")
