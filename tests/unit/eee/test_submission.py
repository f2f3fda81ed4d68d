"""`bot.eee.submission`: each datastore rule on a small PR built from the real pass record."""

from __future__ import annotations

import copy
import hashlib
import json
from collections.abc import Iterator
from typing import Any

import pytest

from bot.eee import instances
from bot.eee.dedupe import HashIndex, Holder, normalized_hash
from bot.eee.paths import path_problem
from bot.eee.submission import (
    Change,
    Claims,
    DatastorePolicy,
    SubmissionReport,
    check_submission,
)
from bot.validation.model import FileReport
from tests.unit.eee.helpers import DATASTORE, MemoryFiles, dumped

FOLDER = "data/demo-source/demo-org/demo-model"
UUID = "f3a1c0de-4b2e-4c1a-9f6d-1b7e5a2c8d40"
AGG = f"{FOLDER}/{UUID}.json"
SAMPLES = f"{FOLDER}/{UUID}_samples.jsonl"
REAL_AGG = (DATASTORE / "pass" / AGG).read_bytes()
REAL_SAMPLES = (DATASTORE / "pass" / SAMPLES).read_bytes()


def record() -> dict[str, Any]:
    return copy.deepcopy(json.loads(REAL_AGG))


def run(
    head: dict[str, bytes],
    *,
    main: dict[str, bytes] | None = None,
    kinds: dict[str, str] | None = None,
    index: HashIndex | None = None,
    policy: DatastorePolicy | None = None,
) -> SubmissionReport:
    kinds = kinds or {}
    changes = [Change(p, kinds.get(p, "added")) for p in head]  # type: ignore[arg-type]
    changes += [Change(p, "removed") for p, k in kinds.items() if k == "removed"]
    return check_submission(
        changes,
        MemoryFiles(head, main),
        index or HashIndex(),
        policy or DatastorePolicy(),
        pr=7,
    )


def codes(result: SubmissionReport, path: str) -> list[str]:
    report = next(r for r in result.files if r.path == path)
    return [d.code for d in report.diagnostics]


def test_the_valid_pair_is_ready() -> None:
    result = run({AGG: REAL_AGG, SAMPLES: REAL_SAMPLES})
    assert result.counts() == (0, 0)
    assert result.ready(DatastorePolicy())
    assert result.hashes[AGG] == "5301b6ed5d5ea2af852d424e2dc51c2bdf5e1d8282ae6e6ba928ead35f5a0802"


def test_a_wrong_checksum_is_compared_and_reported() -> None:
    data = record()
    data["detailed_evaluation_results"]["checksum"] = "0" * 64
    result = run({AGG: dumped(data), SAMPLES: REAL_SAMPLES})
    assert codes(result, AGG) == ["EEE-CHECKSUM"]
    diagnostic = next(r for r in result.files if r.path == AGG).diagnostics[0]
    assert hashlib.sha256(REAL_SAMPLES).hexdigest() in diagnostic.message
    assert diagnostic.field == "detailed_evaluation_results.checksum"


def test_md5_checksums_are_compared_with_md5() -> None:
    data = record()
    data["detailed_evaluation_results"]["hash_algorithm"] = "md5"
    data["detailed_evaluation_results"]["checksum"] = hashlib.md5(REAL_SAMPLES).hexdigest()
    assert run({AGG: dumped(data), SAMPLES: REAL_SAMPLES}).counts() == (0, 0)


def test_rows_ids_and_counts_must_agree_with_the_record() -> None:
    row = json.loads(REAL_SAMPLES)
    other = dict(row, evaluation_id="someone-else", model_id="x/y")
    body = (json.dumps(row) + "\n" + json.dumps(other) + "\n").encode()
    data = record()
    data["detailed_evaluation_results"]["checksum"] = hashlib.sha256(body).hexdigest()
    result = run({AGG: dumped(data), SAMPLES: body})
    messages = [d.message for d in result.files[0].diagnostics]
    assert codes(result, AGG) == ["EEE-PAIR", "EEE-PAIR", "EEE-PAIR"]
    assert any("`total_rows` is 1, but" in m and "has 2 rows" in m for m in messages)
    assert any("'someone-else'" in m for m in messages)
    assert any("'x/y'" in m for m in messages)


def test_file_path_must_name_the_sibling_exactly() -> None:
    data = record()
    data["detailed_evaluation_results"]["file_path"] = f"{UUID}_samples.jsonl"
    result = run({AGG: dumped(data), SAMPLES: REAL_SAMPLES})
    assert "EEE-PAIR" in codes(result, AGG)
    assert "EEE-PAIR" in codes(result, SAMPLES)  # nobody declares the samples file now


def test_an_undeclared_samples_file_is_an_error_on_both_sides() -> None:
    data = record()
    del data["detailed_evaluation_results"]
    result = run({AGG: dumped(data), SAMPLES: REAL_SAMPLES})
    assert codes(result, AGG) == ["EEE-PAIR"]
    assert codes(result, SAMPLES) == ["EEE-PAIR"]


def test_a_declared_samples_file_that_is_missing() -> None:
    result = run({AGG: REAL_AGG})
    assert codes(result, AGG) == ["EEE-PAIR"]


def test_samples_alone_need_their_record_in_the_datastore() -> None:
    assert codes(run({SAMPLES: REAL_SAMPLES}), SAMPLES) == ["EEE-PAIR"]


@pytest.mark.parametrize(
    "path",
    [
        f"data/a/b/{UUID.upper()}.json",  # upper-case uuid
        "data/a/b/f3a1c0de-4b2e-1c1a-9f6d-1b7e5a2c8d40.json",  # version 1
        f"data/a/b/c/d/{UUID}.json",  # too deep
        f"data/a/b/{UUID}.json",  # too shallow
        f"data/a/../c/{UUID}.json",
        f"data/a//c/{UUID}.json",
        f"data/a/CON/c/{UUID}.json",
        f"data/a/data/c/{UUID}.json",
        f"data/a/b\x07/c/{UUID}.json",
        f"data/a/b./c/{UUID}.json",
        f"records/a/b/c/{UUID}.json",
        f"data/a/b/c/{UUID}_samples.json",
    ],
)
def test_the_path_rule(path: str) -> None:
    assert path_problem(path) is not None


def test_a_good_path() -> None:
    assert path_problem(AGG) is None
    assert path_problem(SAMPLES) is None
    assert path_problem(f"data/reward-bench/ai2/tulu-2-7b-rm-v0.json/{UUID}.json") is None


def test_the_model_folder_follows_model_info_id() -> None:
    data = record()
    data["model_info"]["id"] = "demo-org/other/model:7b"
    result = run({AGG: dumped(data), SAMPLES: REAL_SAMPLES})
    diagnostic = result.files[0].diagnostics[0]
    assert diagnostic.code == "EEE-FOLDER"
    assert "the model folder is `demo-model`" in diagnostic.message
    assert "names the model `other_model_7b`" in diagnostic.message
    assert diagnostic.hint is not None
    assert "data/demo-source/demo-org/other_model_7b/" in diagnostic.hint


def test_the_collection_rule_source_is_opt_in() -> None:
    policy = DatastorePolicy(collection="source")
    result = run({AGG: REAL_AGG, SAMPLES: REAL_SAMPLES}, policy=policy)
    (diagnostic,) = result.files[0].diagnostics
    assert "the collection folder is `demo-source`" in diagnostic.message
    assert diagnostic.field == "evaluation_results[0].source_data.dataset_name"
    assert diagnostic.hint is not None
    assert "data/demo_bench/demo-org/demo-model/" in diagnostic.hint
    assert run({AGG: REAL_AGG, SAMPLES: REAL_SAMPLES}).counts() == (0, 0)


def test_an_edit_that_changes_the_model_must_move_the_file() -> None:
    data = record()
    data["model_info"]["id"] = "demo-org/renamed"
    result = run(
        {AGG: dumped(data), SAMPLES: REAL_SAMPLES},
        main={AGG: REAL_AGG},
        kinds={AGG: "modified", SAMPLES: "modified"},
    )
    diagnostic = result.files[0].diagnostics[0]
    assert diagnostic.code == "EEE-MOVED-IDENTITY"
    assert "'demo-org/model'" not in diagnostic.message
    assert "data/demo-source/demo-org/renamed" in diagnostic.message


def test_an_edit_in_place_keeps_a_grandfathered_folder() -> None:
    """A record accepted in a folder older rules allowed keeps it while its identity stays."""
    path = "data/hal-usaco/openai/gpt-4-1/77b2d237-7d79-4e28-85cf-9444ba3c1658.json"
    old = (DATASTORE / "legacy" / path).read_bytes()
    data = json.loads(old)
    data["evaluation_results"][0]["score_details"]["score"] = 0.5
    changed = {path: dumped(data)}
    assert run(changed, main={path: old}, kinds={path: "modified"}).counts() == (0, 0)
    assert codes(run(changed), path) == ["EEE-FOLDER"]  # as a new file it must move


def test_a_deleted_record_is_named() -> None:
    result = run({}, kinds={AGG: "removed"})
    assert codes(result, AGG) == ["EEE-DELETED"]
    assert result.ready(DatastorePolicy())
    assert not result.ready(DatastorePolicy(warnings_block=True))


def test_duplicates_of_main_and_of_open_prs_by_normalised_hash() -> None:
    data = record()
    data["evaluation_id"] = "a-new-id"
    data["retrieved_timestamp"] = "1800000000"
    digest = normalized_hash(data)
    assert digest == normalized_hash(record())
    index = HashIndex()
    index.add(digest, Holder("data/x/y/z/a.json"))
    index.add(digest, Holder("data/x/y/z/b.json", pr=3))
    index.add(digest, Holder(AGG, pr=7))  # this PR's own earlier sighting
    result = run({AGG: dumped(data), SAMPLES: REAL_SAMPLES}, index=index)
    messages = [d.message for d in result.files[0].diagnostics]
    assert codes(result, AGG) == ["EEE-PAIR", "EEE-DUPLICATE", "EEE-DUPLICATE"]
    assert any("`data/x/y/z/a.json` on main" in m for m in messages)
    assert any("open PR #3" in m for m in messages)


def first_come(
    holder: Holder, *, since: float, author: str = "id-alice", body: bytes | None = None
) -> SubmissionReport:
    """This PR (#7, alice's) holding the record since `since`, against one other holder."""
    data = record()
    del data["detailed_evaluation_results"]
    content = body if body is not None else dumped(data)
    index = HashIndex()
    index.add(normalized_hash(data), holder)
    return check_submission(
        [Change(AGG, "added")],
        MemoryFiles({AGG: content}),
        index,
        pr=7,
        claims=Claims(7, author, at=since),
    )


def plain() -> bytes:
    data = record()
    del data["detailed_evaluation_results"]
    return dumped(data)


def test_a_duplicate_of_an_open_pr_that_held_it_first_is_an_error_naming_it() -> None:
    earlier = Holder("data/x/y/z/b.json", pr=9, since=100.0, author="id-bob", content="other")
    result = first_come(earlier, since=200.0)
    assert codes(result, AGG) == ["EEE-DUPLICATE"]
    (diagnostic,) = result.files[0].diagnostics
    assert "open PR #9, which held it first" in diagnostic.message
    assert "byte-for-byte" not in diagnostic.message


def test_a_newer_prs_copy_leaves_the_earlier_pr_as_it_was() -> None:
    later = Holder("data/x/y/z/b.json", pr=3, since=300.0, author="id-bob", content="x")
    assert first_come(later, since=200.0).counts() == (0, 0)  # a lower number is no excuse


def test_a_tie_in_time_goes_to_the_lower_pr_number() -> None:
    same = Holder("data/x/y/z/b.json", pr=3, since=200.0, author="id-bob", content="x")
    assert codes(first_come(same, since=200.0), AGG) == ["EEE-DUPLICATE"]
    same = Holder("data/x/y/z/b.json", pr=9, since=200.0, author="id-bob", content="x")
    assert first_come(same, since=200.0).counts() == (0, 0)


def test_main_is_always_first() -> None:
    assert codes(first_come(Holder("data/x/y/z/b.json"), since=0.0), AGG) == ["EEE-DUPLICATE"]


def test_a_byte_for_byte_copy_from_another_account_is_named_as_such() -> None:
    import hashlib

    content = hashlib.sha256(plain()).hexdigest()
    copied = Holder(AGG, pr=2, since=100.0, author="id-bob", content=content)
    (diagnostic,) = first_come(copied, since=200.0, body=plain()).files[0].diagnostics
    assert "by another account" in diagnostic.message
    assert "byte-for-byte copy" in diagnostic.message
    own = Holder(AGG, pr=2, since=100.0, author="id-alice", content=content)
    (diagnostic,) = first_come(own, since=200.0, body=plain()).files[0].diagnostics
    assert "byte-for-byte" not in diagnostic.message  # the same author's own two PRs


def test_a_record_edited_in_place_is_not_its_own_duplicate() -> None:
    index = HashIndex()
    index.add(normalized_hash(record()), Holder(AGG))
    result = run({AGG: REAL_AGG, SAMPLES: REAL_SAMPLES}, index=index, kinds={AGG: "modified"})
    assert result.counts() == (0, 0)


def test_duplicates_within_the_pr() -> None:
    other = f"{FOLDER}/0b0fd4c2-2b7e-4f5c-9d1e-8a3f6c2e1b4a.json"
    data = record()
    del data["detailed_evaluation_results"]
    result = run({AGG: dumped(data), other: dumped(data)})
    assert codes(result, other) == []  # paths in sorted order: the later one carries it
    assert codes(result, AGG) == ["EEE-DUPLICATE"]


def test_versions_the_datastore_does_not_accept() -> None:
    result = run(
        {AGG: REAL_AGG, SAMPLES: REAL_SAMPLES}, policy=DatastorePolicy(versions=("0.2.2",))
    )
    diagnostic = result.files[0].diagnostics[0]
    assert diagnostic.code == "EEE-VERSION"
    assert "not one this datastore accepts" in diagnostic.message


def test_a_score_outside_its_bounds() -> None:
    data = record()
    metric = data["evaluation_results"][0]["metric_config"]
    metric.update(min_score=0, max_score=1)
    data["evaluation_results"][0]["score_details"]["score"] = 73.4
    result = run({AGG: dumped(data), SAMPLES: REAL_SAMPLES})
    assert "EEE-SCORE" in codes(result, AGG)


def test_other_files_are_skipped() -> None:
    result = run({"README.md": b"# hi", ".gitattributes": b""})
    assert result.files == []
    assert result.skipped == [".gitattributes", "README.md"]


def test_streaming_in_any_chunk_size_gives_the_same_summary() -> None:
    whole = instances.scan_bytes(FileReport("s", "eee"), REAL_SAMPLES * 3)
    for size in (1, 2, 5, 4096):
        scan = instances.InstanceScan(FileReport("s", "eee"))
        content = REAL_SAMPLES * 3
        for start in range(0, len(content), size):
            scan.feed(content[start : start + size])
        summary = scan.finish()
        assert (
            (summary.rows, summary.digest)
            == (whole.rows, whole.digest)
            == (
                3,
                hashlib.sha256(content).hexdigest(),
            )
        )


def test_a_row_over_the_line_cap_stops_the_read(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(instances, "MAX_LINE_BYTES", 100)
    report = FileReport("s", "eee")
    scan = instances.InstanceScan(report)
    for _ in range(50):
        scan.feed(b"x" * 10)
    summary = scan.finish()
    assert not summary.complete
    assert [d.code for d in report.diagnostics] == ["EEE-SAMPLES-LIMIT"]


def test_rows_past_the_schema_bound_are_checked_as_strict_json_with_a_warning() -> None:
    row = json.loads(REAL_SAMPLES)
    bad = dict(row, evaluation={"score": "high"})  # a schema error, past the bound
    body = (json.dumps(row) + "\n" + json.dumps(bad) + "\n" + '{"a": 1, "a": 2}\n').encode()
    bounded = FileReport("s", "eee")
    summary = instances.InstanceScan(bounded, schema_rows=1)
    summary.feed(body)
    assert summary.finish().rows == 3
    assert [d.code for d in bounded.diagnostics] == ["EEE-SAMPLES-PARTIAL", "EEE-SAMPLES-ROW"]
    full = FileReport("s", "eee")
    instances.scan_bytes(full, body)
    assert [d.code for d in full.diagnostics] == ["EEE-SCHEMA", "EEE-SCHEMA", "EEE-JSON"]


def test_a_record_over_the_cap_is_refused_not_parsed_cut(monkeypatch: pytest.MonkeyPatch) -> None:
    from bot.eee import records

    monkeypatch.setattr(records, "MAX_RECORD_BYTES", 100)
    result = run({AGG: REAL_AGG[:101]})
    assert codes(result, AGG) == ["EEE-TOO-LARGE"]


@pytest.mark.parametrize("depth", [70, 5_000, 200_000])
def test_hostile_nesting_is_an_error_of_the_file_not_a_crash(depth: int) -> None:
    body = b'{"schema_version": "0.3.0", "evaluation_id": ' + b"[" * depth + b"]" * depth + b"}"
    result = run({AGG: body, SAMPLES: body.replace(b"{", b"{", 1) + b"\n"})
    assert codes(result, AGG) == ["EEE-JSON"]
    assert "EEE-JSON" in codes(result, SAMPLES)


def test_a_file_the_reader_cannot_serve_is_an_error_of_that_file() -> None:
    from bot.eee.submission import Unreadable

    class Refusing(MemoryFiles):
        def chunks(self, path: str) -> Iterator[bytes]:
            yield REAL_SAMPLES[:10]
            raise Unreadable("declared 5 GB, over the cap")

    other = f"{FOLDER}/0b0fd4c2-2b7e-4f5c-9d1e-8a3f6c2e1b4a.json"
    data = record()
    del data["detailed_evaluation_results"]
    head = {AGG: REAL_AGG, SAMPLES: REAL_SAMPLES, other: dumped(data)}
    changes = [Change(path, "added") for path in head]
    result = check_submission(changes, Refusing(head), HashIndex())
    assert codes(result, SAMPLES) == ["FILE-UNREADABLE"]
    assert codes(result, AGG) == []  # no checksum or row verdict on a file not read whole
    assert codes(result, other) == []  # the other files are still checked


def test_datastore_findings_carry_the_line_of_their_field() -> None:
    data = record()
    data["detailed_evaluation_results"]["checksum"] = "0" * 64
    content = dumped(data)
    (diagnostic,) = run({AGG: content, SAMPLES: REAL_SAMPLES}).files[0].diagnostics
    line = next(
        number
        for number, text in enumerate(content.decode().splitlines(), start=1)
        if '"checksum"' in text
    )
    assert (diagnostic.code, diagnostic.line) == ("EEE-CHECKSUM", line)


def test_a_deletion_must_take_its_pair_along() -> None:
    result = run({AGG: REAL_AGG}, kinds={SAMPLES: "removed"})
    assert codes(result, SAMPLES) == ["EEE-DELETED", "EEE-PAIR"]
    assert "still declares this file" in result.files[-1].diagnostics[1].message
    gone = run({SAMPLES: REAL_SAMPLES}, kinds={AGG: "removed", SAMPLES: "modified"})
    assert codes(gone, AGG) == ["EEE-DELETED", "EEE-PAIR"]
    both = check_submission(
        [Change(AGG, "removed"), Change(SAMPLES, "removed")], MemoryFiles({}), HashIndex()
    )
    assert [[d.code for d in r.diagnostics] for r in both.files] == [["EEE-DELETED"]] * 2


def test_a_pr_over_the_file_bound_is_not_ready_and_says_to_split() -> None:
    data = record()
    del data["detailed_evaluation_results"]
    head = {}
    for n in range(5):
        data["evaluation_results"][0]["score_details"]["score"] = n / 10
        head[f"{FOLDER}/{n:08x}-0000-4000-8000-000000000000.json"] = dumped(data)
    head["README.md"] = b"# more"
    result = run(head, policy=DatastorePolicy(max_files=3))
    names = [r.path.rsplit("/", 1)[1][:8] for r in result.files]
    assert names == ["00000000", "00000001", "00000002", "00000003"]
    last = result.files[-1].diagnostics
    assert [d.code for d in last] == ["EEE-TOO-MANY"]
    assert "2 more datastore files than the 3" in last[0].message
    assert not result.ready(DatastorePolicy())
    assert run(head, policy=DatastorePolicy(max_files=None)).counts() == (0, 0)


def test_a_samples_file_changed_alone_is_compared_with_its_record_on_main() -> None:
    """The record stays on main; the PR replaces its samples file: the record's checksum and
    row count no longer hold, which is the new file's error."""
    changed = REAL_SAMPLES + REAL_SAMPLES  # one more row
    check = check_submission(
        [Change(SAMPLES, "modified")], MemoryFiles({AGG: REAL_AGG, SAMPLES: changed}), HashIndex()
    )
    (report,) = check.files
    assert [d.code for d in report.diagnostics] == ["EEE-PAIR", "EEE-CHECKSUM"]
    same = check_submission(
        [Change(SAMPLES, "modified")],
        MemoryFiles({AGG: REAL_AGG, SAMPLES: REAL_SAMPLES}),
        HashIndex(),
    )
    assert same.counts() == (0, 0)


def placed(folder: str, data: dict[str, Any], policy: DatastorePolicy | None = None) -> FileReport:
    path = f"{folder}/{UUID}.json"
    (report,) = run({path: dumped(data)}, policy=policy).files
    return report


def granite() -> dict[str, Any]:
    data = record()
    del data["detailed_evaluation_results"]
    data["model_info"]["id"] = "ibm/granite-40-small"
    return data


def test_the_folder_finding_names_the_developer_and_model_that_differ() -> None:
    """The real mismatch (`IBM/Granite-4.0-Small` against the id `ibm/granite-40-small`) is
    named part by part; the collection is not blamed, even with a `dataset_name` no folder can
    take, since with `collection: any` the maintainers name collections."""
    data = granite()
    data["evaluation_results"][0]["source_data"]["dataset_name"] = "MMLU | 5-shot?"
    report = placed("data/hal-usaco/IBM/Granite-4.0-Small", data)
    (diagnostic,) = report.diagnostics
    assert diagnostic.code == "EEE-FOLDER"
    assert diagnostic.field == "model_info.id"
    assert diagnostic.message == (
        "the developer and model folders are `IBM/Granite-4.0-Small`, but `model_info.id`"
        " 'ibm/granite-40-small' names `ibm/granite-40-small`"
    )
    assert diagnostic.hint is not None
    assert "`data/hal-usaco/ibm/granite-40-small/`" in diagnostic.hint
    assert "dataset_name" not in diagnostic.message + diagnostic.hint


def test_the_folder_finding_names_one_part_when_one_differs() -> None:
    (developer,) = placed("data/c/IBM/granite-40-small", granite()).diagnostics
    assert developer.message.startswith("the developer folder is `IBM`, but `model_info.id`")
    assert developer.message.endswith("names the developer `ibm`")
    (model,) = placed("data/c/ibm/Granite-4.0-Small", granite()).diagnostics
    assert model.message.startswith("the model folder is `Granite-4.0-Small`")
    assert model.message.endswith("names the model `granite-40-small`")
    flat = granite()
    flat["model_info"].update(id="granite-40-small", developer="ibm")
    (developer,) = placed("data/c/IBM/granite-40-small", flat).diagnostics
    assert developer.field == "model_info.developer"
    assert "`model_info.developer` 'ibm' with `model_info.id` 'granite-40-small'" in (
        developer.message
    )


def test_a_record_without_model_info_gets_its_schema_finding_only() -> None:
    data = granite()
    del data["model_info"]
    report = placed("data/c/IBM/Granite-4.0-Small", data)
    assert [d.code for d in report.diagnostics] == ["EEE-SCHEMA"]
    assert "'model_info' is a required property" in report.diagnostics[0].message
    data = granite()
    data["model_info"]["id"] = 42  # the schema's finding too
    assert "EEE-FOLDER" not in [d.code for d in placed("data/c/d/m", data).diagnostics]


def test_an_identity_that_names_no_folder_says_why() -> None:
    data = granite()
    data["model_info"]["id"] = "granite"
    data["model_info"].pop("developer", None)
    (diagnostic,) = placed("data/c/d/m", data).diagnostics
    assert diagnostic.field == "model_info.developer"
    assert "`model_info.developer` is missing" in diagnostic.message
    data["model_info"]["id"] = "unknown/granite"
    (diagnostic,) = placed("data/c/d/m", data).diagnostics
    assert "its developer part is the placeholder `unknown`" in diagnostic.message


def test_a_misplaced_record_is_a_warning_that_blocks_the_merge() -> None:
    """EEE's gate has it as a warning, and its README makes every warning block the merge."""
    result = run({f"data/c/IBM/Granite-4.0-Small/{UUID}.json": dumped(granite())})
    assert result.counts() == (0, 1)
    assert result.blocking() == 1
    assert not result.ready(DatastorePolicy())
    deleted = run({}, kinds={AGG: "removed"})
    assert deleted.counts() == (0, 1)
    assert deleted.blocking() == 0
    assert deleted.ready(DatastorePolicy())
