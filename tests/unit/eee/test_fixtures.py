"""The real datastore fixtures: EEE's verdicts and duplicate hashes, reproduced.

Expected values are those `tests/samples/real-world/every_eval_ever/datastore/PROVENANCE.md`
records from EEE's validator @ 9bce413 (`python -m every_eval_ever validate`,
`check_duplicate_entries`). Where evalbot's verdict differs on purpose, the test says so and
docs/eee.md gives the reason.
"""

from __future__ import annotations

import json

import pytest

from bot.eee import datastore_diagnostics
from bot.eee.dedupe import HashIndex, normalized_hash
from bot.eee.submission import Change, check_submission
from tests.unit.eee.helpers import DATASTORE, MemoryFiles, folder_files

#: Record file name -> the normalised hash PROVENANCE.md records for it.
HASHES = {
    "f3a1c0de-4b2e-4c1a-9f6d-1b7e5a2c8d40.json": (
        "5301b6ed5d5ea2af852d424e2dc51c2bdf5e1d8282ae6e6ba928ead35f5a0802"
    ),
    "2fe532ba-5757-4702-9e67-36c60017dc2b.json": (
        "b4d6e492cca8b148b6662e3f36827431bf351bc54e68a4c129760eec3a53e40b"
    ),
    "83f8f705-bcf1-473c-9fd2-77d00dd856f9.json": (
        "fc5c505e90062f4885b35d3a74c0dcbcd4fc9467915085fec58e993d6315d90e"
    ),
    "ba46ef91-d157-4984-b3df-ce33d8d97f8e.json": (
        "e14ad67e217efe473425f7bdac31652d4be27de45c79192675bd8ab6668a0432"
    ),
    "5f43832f-14fa-49e1-a851-949163aec826.json": (
        "529690289342cc428039031c1fa67e56cc26e53b15117c7e263ba0954ad3d945"
    ),
    "ad3211a9-4390-4247-b64d-600191a88a75.json": (
        "18291a5ed2a2474c7ba82454195979ace65e7134f90f8ed92dfc85b3353f6482"
    ),
    "77b2d237-7d79-4e28-85cf-9444ba3c1658.json": (
        "2587be042d4c4ac9b9584e149bac586db898d632ab651840049baad5de850abf"
    ),
    "676f4465-ce78-411a-9f5a-c97b3d2eac4f.json": (
        "eacbf293ff1d7fe35a8c0e183e095c78d2db549b2aa848e4f2e494e78f7d2d5b"
    ),
}


def record_file(name: str) -> bytes:
    (found,) = DATASTORE.rglob(name)
    return found.read_bytes()


@pytest.mark.parametrize("name", sorted(HASHES))
def test_normalised_hash_is_eees(name: str) -> None:
    assert normalized_hash(json.loads(record_file(name))) == HASHES[name]


def check_folder(name: str) -> dict[str, list[str]]:
    files = folder_files(DATASTORE / name)
    changes = [Change(path, "added") for path in files]
    result = check_submission(changes, MemoryFiles(files), HashIndex())
    blocking = (
        datastore_diagnostics.BLOCKING_WARNINGS
    )  # what keeps a PR from merging, as EEE's gate has it
    return {
        report.path: sorted(
            {d.code for d in report.diagnostics if d.is_error or d.code in blocking}
        )
        for report in result.files
    }


def test_pass_folder_passes_as_in_eee() -> None:
    verdicts = check_folder("pass")
    assert len(verdicts) == 5
    assert all(codes == [] for codes in verdicts.values()), verdicts


def test_legacy_records_pass_by_the_version_they_declare_except_a_misplaced_one() -> None:
    """EEE @ HEAD rejects all five (the 0.3.0 deployment fields); evalbot judges each by the
    0.2.x schema it declares (docs/eee.md). The hal-usaco record sits in `gpt-4-1` while its
    `model_info.id` is `openai/gpt-4.1`: as a new file, it would have to move."""
    verdicts = check_folder("legacy")
    assert len(verdicts) == 5
    failing = {path: codes for path, codes in verdicts.items() if codes}
    assert failing == {
        "data/hal-usaco/openai/gpt-4-1/77b2d237-7d79-4e28-85cf-9444ba3c1658.json": ["EEE-FOLDER"]
    }


def test_invalid_files_fail_for_the_reasons_eee_gives() -> None:
    verdicts = check_folder("invalid")
    assert verdicts == {
        "None/narrativeqa/openai/gpt2/None_samples.jsonl": ["EEE-PAIR", "EEE-PATH", "EEE-VERSION"],
        "data/reward-bench/my_model/6195e81a-d5a5-40af-96f6-259252009ad7.json": ["EEE-PATH"],
        "pr137-t2i/geneval_sdxl_example.json": ["EEE-PAIR", "EEE-PATH"],
        "pr137-t2i/geneval_sdxl_example_samples.jsonl": ["EEE-PAIR", "EEE-PATH", "EEE-VERSION"],
    }


def test_no_duplicates_among_the_fixtures_as_eee_finds() -> None:
    digests = [normalized_hash(json.loads(record_file(name))) for name in HASHES]
    assert len(set(digests)) == len(digests)


def test_converter_rows_with_null_evaluation_result_id_are_accepted() -> None:
    """EEE's lm-eval converter writes `"evaluation_result_id": null` in all ten rows; EEE's
    validator (Pydantic, optional fields nullable) accepts them, and so does evalbot."""
    folder = DATASTORE / "pass" / "data" / "math_perturbed_full"
    samples = next(folder.rglob("*_samples.jsonl"))
    rows = samples.read_bytes().splitlines()
    assert len(rows) == 10
    assert all(json.loads(row)["evaluation_result_id"] is None for row in rows)
    assert check_folder("pass")[samples.relative_to(DATASTORE / "pass").as_posix()] == []
