"""Merging new entries into the file on main: kept byte for byte, appended, replaced on ask."""

from __future__ import annotations

import pytest

from bot.submit.errors import SubmitError
from bot.submit.merge import merge_results
from bot.validation.yamlload import load_yaml

MAIN = """\
# results kept by hand
- dataset:
    id: cais/hle
    task_id: hle
  value: 20.90   # as the paper reports
  verifyToken: a.b.c
- dataset:
    id: cais/hle
    task_id: hle
  notes: with tools
  value: 30.5
"""
NEW = {"dataset": {"id": "cais/hle", "task_id": "hle"}, "value": 22.5, "verifyToken": "x.y.z"}


def test_no_file_on_main_writes_the_new_entries() -> None:
    text = merge_results(None, [NEW], path="p", replace=False)
    assert load_yaml(text.encode()).data == [NEW]


def test_other_entries_are_kept_byte_for_byte() -> None:
    other = {**NEW, "notes": "five-shot"}
    text = merge_results(MAIN, [other], path="p", replace=False)
    assert text.startswith(MAIN)
    assert load_yaml(text.encode()).data[-1] == other


def test_the_same_benchmark_task_and_notes_needs_replace() -> None:
    with pytest.raises(SubmitError, match=r"entry 0 \(line 2\).*--replace"):
        merge_results(MAIN, [NEW], path="p", replace=False)
    text = merge_results(MAIN, [NEW], path="p", replace=True)
    data = load_yaml(text.encode()).data
    assert data == [load_yaml(MAIN.encode()).data[1], NEW]
    assert text.startswith("# results kept by hand\n")


def test_a_file_that_is_not_a_block_list_is_left_to_a_human() -> None:
    with pytest.raises(SubmitError, match="by hand"):
        merge_results(
            "[{dataset: {id: a/b, task_id: t}, value: 1}]\n", [NEW], path="p", replace=True
        )
    with pytest.raises(SubmitError, match="not a valid list"):
        merge_results("a: b\n", [NEW], path="p", replace=False)
