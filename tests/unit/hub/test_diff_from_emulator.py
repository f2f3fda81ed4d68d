"""`bot.hub.pulls.parse_diff` reads back every path of the emulator's git-style diffs.

The emulator writes diffs as git does (quoted paths, a tab after labels with spaces); the bot
must recover the exact paths and change kinds from them, for any path a repo may hold.
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from bot.hub.pulls import Change, parse_diff
from evalbot_dev.emulator.git import blob_oid, unified_diff

names = st.text(
    alphabet=st.characters(exclude_categories=["Cs"], exclude_characters="/\x00"),
    min_size=1,
    max_size=12,
).filter(lambda name: name not in (".", ".."))
paths = st.lists(names, min_size=1, max_size=3).map("/".join)
contents = st.sampled_from([b"a\n", b"b\nc\n", b"", b"\x00\xff binary"])


@given(
    before=st.dictionaries(paths, contents, max_size=4),
    after=st.dictionaries(paths, contents, max_size=4),
)
def test_paths_and_changes_survive_the_round_trip(
    before: dict[str, bytes], after: dict[str, bytes]
) -> None:
    blobs = {blob_oid(content): content for content in [*before.values(), *after.values()]}
    diff = unified_diff(
        {path: blob_oid(c) for path, c in before.items()},
        {path: blob_oid(c) for path, c in after.items()},
        blobs,
    )
    expected = {
        path: Change.ADDED
        if path not in before
        else Change.REMOVED
        if path not in after
        else Change.MODIFIED
        for path in before.keys() | after.keys()
        if before.get(path) != after.get(path)
    }
    found = {(f.new_path or f.old_path): f.change for f in parse_diff(diff)}
    assert found == expected
