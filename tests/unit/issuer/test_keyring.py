"""The keyring on disk: creation, rotation steps, what the JWKS publishes, file modes."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from bot.issuer.keyring import KeyringError, KeyringHolder, load_keyring, rotate


def test_rotation_moves_next_to_active_to_previous_to_retired(tmp_path: Path) -> None:
    first = rotate(tmp_path)
    ring = load_keyring(tmp_path)
    assert ring.active == first["active"]
    assert ring.published() == [first["active"], first["next"]]
    for kid in ring.published():
        assert stat.S_IMODE((tmp_path / f"{kid}.pem").stat().st_mode) == 0o600

    second = rotate(tmp_path)
    assert second["active"] == first["next"]
    assert second["previous"] == [first["active"]]
    assert set(load_keyring(tmp_path).published()) == {
        first["active"],
        first["next"],
        second["next"],
    }

    third = rotate(tmp_path)
    assert third["retired"] == [first["active"]]
    assert first["active"] not in load_keyring(tmp_path).published()
    assert not (tmp_path / f"{first['active']}.pem").exists()
    jwks = load_keyring(tmp_path).jwks()
    assert all("d" not in key for key in jwks["keys"])


def test_keep_previous_keeps_more_keys_published(tmp_path: Path) -> None:
    first = rotate(tmp_path)
    second = rotate(tmp_path, keep_previous=2)
    third = rotate(tmp_path, keep_previous=2)
    assert third["previous"] == [second["active"], first["active"]]
    assert third["retired"] == []
    fourth = rotate(tmp_path, keep_previous=2)
    assert fourth["retired"] == [first["active"]]


def test_a_group_readable_key_is_refused(tmp_path: Path) -> None:
    state = rotate(tmp_path)
    os.chmod(tmp_path / f"{state['next']}.pem", 0o640)
    with pytest.raises(KeyringError, match="readable by others"):
        load_keyring(tmp_path)


def test_no_keyring_says_how_to_make_one(tmp_path: Path) -> None:
    with pytest.raises(KeyringError, match="evalbot keys rotate --keyring"):
        load_keyring(tmp_path)


def test_the_holder_reloads_after_a_rotation_and_keeps_the_last_good_ring(tmp_path: Path) -> None:
    rotate(tmp_path)
    clock = [0.0]
    errors: list[KeyringError] = []
    holder = KeyringHolder(tmp_path, clock=lambda: clock[0], on_error=errors.append)
    before = holder.load().active
    state = rotate(tmp_path)
    assert holder.current().active == before  # checked at most once a second
    clock[0] += 2
    assert holder.current().active == state["active"] != before
    (tmp_path / "keyring.json").write_text(json.dumps({"active": "gone"}))
    clock[0] += 2
    assert holder.current().active == state["active"]
    assert errors
