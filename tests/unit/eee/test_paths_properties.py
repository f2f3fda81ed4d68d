"""`bot.eee.paths.path_problem` accepts exactly the paths EEE's `check_path_structure` accepts
(`evaleval/every_eval_ever` `every_eval_ever/validator/validation_core.py` @ 9bce4136, MIT
licence, copied below), but for one deliberate difference: evalbot also refuses DEL (0x7f) in a
folder name, a control character EEE's pattern leaves out."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from bot.eee.paths import path_problem

# --- EEE's rule, verbatim but for line breaks and quotes ------------------------------------
_UUID_RE = r"^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}"
_AGGREGATE_FILE_RE = re.compile(rf"{_UUID_RE}\.json$")
_INSTANCE_FILE_RE = re.compile(rf"{_UUID_RE}_samples\.jsonl$")
_INVALID_PATH_COMPONENT_CHARS = re.compile(r'[<>:"\\|?*\x00-\x1f]')
_WINDOWS_RESERVED_NAMES = {
    "CON",
    "PRN",
    "AUX",
    "NUL",
    *(f"COM{index}" for index in range(1, 10)),
    *(f"LPT{index}" for index in range(1, 10)),
}


def eee_path_errors(repo_path: str) -> bool:
    parts = repo_path.split("/")
    if len(parts) != 5:
        return True
    if repo_path.startswith("/") or "\\" in repo_path or any(p in {"", ".", ".."} for p in parts):
        return True
    if parts[0] != "data":
        return True
    if [component for component in parts[1:4] if component == "data"]:
        return True
    for component in parts[1:4]:
        if (
            _INVALID_PATH_COMPONENT_CHARS.search(component)
            or component.endswith((".", " "))
            or component.split(".", 1)[0].upper() in _WINDOWS_RESERVED_NAMES
        ):
            return True
    filename = parts[4]
    return not (_AGGREGATE_FILE_RE.fullmatch(filename) or _INSTANCE_FILE_RE.fullmatch(filename))


# ------------------------------------------------------------------------------------------------

PART = st.sampled_from(
    ["data", "", ".", "..", "a", "CON", "com3.x", "Lpt1", "x.", "x ", "a:b", "a\x07", "v1.2", "é"]
) | st.text(alphabet=st.characters(exclude_characters="/\x7f"), max_size=6)
NAME = st.sampled_from(
    [
        "f3a1c0de-4b2e-4c1a-9f6d-1b7e5a2c8d40.json",
        "f3a1c0de-4b2e-4c1a-9f6d-1b7e5a2c8d40_samples.jsonl",
        "F3A1C0DE-4B2E-4C1A-9F6D-1B7E5A2C8D40.json",
        "f3a1c0de-4b2e-1c1a-9f6d-1b7e5a2c8d40.json",
        "f3a1c0de-4b2e-4c1a-7f6d-1b7e5a2c8d40.json",
        "f3a1c0de-4b2e-4c1a-9f6d-1b7e5a2c8d40.json\n",
        "results.json",
    ]
)


DATASTORE_LIKE = st.tuples(PART, PART, PART).map(lambda folders: ["data", *folders])


@settings(max_examples=1000, deadline=None)
@given(DATASTORE_LIKE | st.lists(PART, max_size=6), NAME, st.booleans())
def test_the_verdict_is_eees(parts: list[str], name: str, rooted: bool) -> None:
    path = ("/" if rooted else "") + "/".join([*parts, name])
    assert (path_problem(path) is not None) == eee_path_errors(path), path


def test_both_accept_a_good_path_and_evalbot_refuses_del() -> None:
    good = "data/MMLU-Pro/01-ai/yi-1.5-34b-chat/f3a1c0de-4b2e-4c1a-9f6d-1b7e5a2c8d40.json"
    assert path_problem(good) is None
    assert not eee_path_errors(good)
    odd = good.replace("01-ai", "01" + chr(0x7F) + "ai")
    assert path_problem(odd) is not None
    assert not eee_path_errors(odd)
