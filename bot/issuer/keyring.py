"""The issuer's signing keys on disk (active, next, previous, retired) and their rotation
(docs/issuer.md, "Keys and rotation")."""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import stat
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from bot.tokens.signer import (
    check_kid,
    generate_private_key,
    load_private_key,
    private_key_pem,
    public_jwk,
)

KEYRING_FILE = "keyring.json"


class KeyringError(ValueError):
    """The keyring cannot be used; the message names the file and the fix."""


@dataclass(frozen=True)
class Keyring:
    active: str
    next: str | None
    previous: tuple[str, ...]
    retired: tuple[str, ...]
    keys: dict[str, Ed25519PrivateKey] = field(repr=False)

    @property
    def signing_key(self) -> Ed25519PrivateKey:
        return self.keys[self.active]

    def published(self) -> list[str]:
        kids = [self.active, *([self.next] if self.next else []), *self.previous]
        return list(dict.fromkeys(kids))

    def jwks(self) -> dict[str, Any]:
        return {"keys": [public_jwk(self.keys[kid], kid) for kid in self.published()]}


def new_kid() -> str:
    return f"{time.strftime('%Y%m%d', time.gmtime())}-{secrets.token_hex(4)}"


def _check_private_file(path: Path) -> None:
    try:
        mode = path.stat().st_mode
    except OSError as error:
        raise KeyringError(f"{path}: cannot read the signing key: {error}") from error
    if mode & (stat.S_IRWXG | stat.S_IRWXO):
        raise KeyringError(
            f"{path}: the signing key is readable by others (mode {stat.S_IMODE(mode):o}); "
            f"run `chmod 600 {path}`"
        )


def _read_state(directory: Path) -> dict[str, Any]:
    path = directory / KEYRING_FILE
    try:
        state = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as error:
        raise KeyringError(
            f"{path}: no keyring; create one with `evalbot keys rotate --keyring {directory}`"
        ) from error
    except (OSError, ValueError) as error:
        raise KeyringError(f"{path}: cannot read the keyring: {error}") from error
    if not isinstance(state, dict) or not isinstance(state.get("active"), str):
        raise KeyringError(f"{path}: expected an object with an `active` kid")
    return state


def _kids(state: dict[str, Any], name: str, path: Path) -> tuple[str, ...]:
    value = state.get(name, [])
    if not isinstance(value, list) or not all(isinstance(kid, str) for kid in value):
        raise KeyringError(f"{path}: `{name}` must be a list of kids")
    return tuple(value)


def load_keyring(directory: Path) -> Keyring:
    """Read and check the keyring; `KeyringError` names the file when it cannot be used."""
    state = _read_state(directory)
    where = directory / KEYRING_FILE
    nxt = state.get("next")
    if nxt is not None and not isinstance(nxt, str):
        raise KeyringError(f"{where}: `next` must be a kid")
    previous = _kids(state, "previous", where)
    keyring_keys: dict[str, Ed25519PrivateKey] = {}
    for kid in dict.fromkeys([state["active"], *([nxt] if nxt else []), *previous]):
        try:
            check_kid(kid)
        except ValueError as error:
            raise KeyringError(f"{where}: {error}") from error
        path = directory / f"{kid}.pem"
        _check_private_file(path)
        try:
            keyring_keys[kid] = load_private_key(path.read_bytes())
        except (OSError, ValueError) as error:
            raise KeyringError(f"{path}: cannot load the signing key: {error}") from error
    return Keyring(
        active=state["active"],
        next=nxt,
        previous=previous,
        retired=_kids(state, "retired", where),
        keys=keyring_keys,
    )


def _write_key(directory: Path, kid: str, key: Ed25519PrivateKey) -> None:
    path = directory / f"{kid}.pem"
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(descriptor, "wb") as handle:
        handle.write(private_key_pem(key))


def _write_state(directory: Path, state: dict[str, Any]) -> None:
    temporary = directory / f".{KEYRING_FILE}.{secrets.token_hex(4)}"
    temporary.write_text(json.dumps(state, indent=2) + "\n", encoding="utf-8")
    os.replace(temporary, directory / KEYRING_FILE)  # atomic: a reader sees old or new


def rotate(directory: Path, *, keep_previous: int = 1) -> dict[str, Any]:
    """One rotation step (creating the keyring when there is none); returns the new state.

    `keep_previous` keys stay published after they stop signing (newest first); older ones
    are retired. Keeping more keeps old results verifiable on a re-run for longer.
    """
    directory.mkdir(parents=True, exist_ok=True, mode=0o700)
    if not (directory / KEYRING_FILE).exists():
        active, nxt = new_kid(), new_kid()
        for kid in (active, nxt):
            _write_key(directory, kid, generate_private_key())
        state: dict[str, Any] = {"active": active, "next": nxt, "previous": [], "retired": []}
        _write_state(directory, state)
        return state
    current = load_keyring(directory)
    promoted = current.next or new_kid()
    if current.next is None:
        _write_key(directory, promoted, generate_private_key())
    fresh = new_kid()
    _write_key(directory, fresh, generate_private_key())
    previous = [kid for kid in (current.active, *current.previous) if kid != promoted]
    kept, retired = previous[: max(1, keep_previous)], previous[max(1, keep_previous) :]
    state = {
        "active": promoted,
        "next": fresh,
        "previous": kept,
        "retired": [*current.retired, *retired],
    }
    _write_state(directory, state)
    for kid in retired:
        with contextlib.suppress(FileNotFoundError):
            (directory / f"{kid}.pem").unlink()
    return state


@dataclass
class KeyringHolder:
    """The current keyring of a running issuer, reloaded when `keyring.json` changes, so a
    rotation takes effect without a restart. A keyring broken by hand keeps the last good
    one in use (the issuer never stops signing because of a half-done edit)."""

    directory: Path
    check_interval_s: float = 1.0
    clock: Callable[[], float] = time.monotonic
    on_error: Callable[[KeyringError], None] = lambda error: None
    _keyring: Keyring | None = None
    _stamp: tuple[int, int] | None = None
    _checked_at: float = float("-inf")
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def load(self) -> Keyring:
        """Load at start; raises `KeyringError` (the issuer then refuses to start)."""
        with self._lock:
            self._stamp = self._current_stamp()
            self._keyring = load_keyring(self.directory)
            self._checked_at = self.clock()
            return self._keyring

    def _current_stamp(self) -> tuple[int, int] | None:
        try:
            info = (self.directory / KEYRING_FILE).stat()
        except OSError:
            return None
        return info.st_mtime_ns, info.st_ino

    def current(self) -> Keyring:
        with self._lock:
            now = self.clock()
            if self._keyring is not None and now - self._checked_at < self.check_interval_s:
                return self._keyring
            self._checked_at = now
            stamp = self._current_stamp()
            if self._keyring is None or stamp != self._stamp:
                try:
                    self._keyring = load_keyring(self.directory)
                    self._stamp = stamp
                except KeyringError as error:
                    self.on_error(error)
                    if self._keyring is None:
                        raise
            return self._keyring
