"""The emulated Hub's tables and lock, and the value types its operations exchange."""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Self

from evalbot_dev.emulator.cdn import Cdn
from evalbot_dev.emulator.git import Commit
from evalbot_dev.emulator.ids import ObjectIds
from evalbot_dev.emulator.model import (
    Account,
    Discussion,
    Event,
    Publisher,
    Repo,
    Token,
    Webhook,
)

_SHA = re.compile(r"[0-9a-f]{40}")
_SHORT_SHA = re.compile(r"[0-9a-f]{7,39}")
_PR_REF = re.compile(r"refs/pr/(\d+)")
#: What the Hub commits first in every new repo.
_GITATTRIBUTES = (
    b"*.bin filter=lfs diff=lfs merge=lfs -text\n"
    b"*.safetensors filter=lfs diff=lfs merge=lfs -text\n"
)


@dataclass(frozen=True)
class Trigger:
    """A change that fires webhooks: `(scope, action)` plus the objects the payload describes."""

    scope: str
    action: str
    repo: Repo
    discussion: Discussion | None = None
    comment: Event | None = None
    updated_refs: tuple[tuple[str, str | None, str | None], ...] = ()


@dataclass(frozen=True)
class FileChange:
    """One line of an ndjson commit: content is None for a deletion.

    `lfs`: store the content as an LFS object, with a pointer blob in the tree, as the Hub does
    for a file `.gitattributes` tracks or one uploaded as LFS (evalbot_dev.emulator.lfs).
    """

    path: str
    content: bytes | None
    folder: bool = False
    lfs: bool = False


@dataclass
class CommitOutcome:
    commit: Commit
    pr_num: int | None = None


Listener = Callable[[Trigger], None]


@dataclass
class StateBase:
    """The state itself: every table, the lock, the listeners (see the package docstring)."""

    benchmark_tag: str = "benchmark:official"
    ids: ObjectIds = field(default_factory=ObjectIds)
    accounts: dict[str, Account] = field(default_factory=dict)
    tokens: dict[str, Token] = field(default_factory=dict)
    members: dict[str, dict[str, str]] = field(default_factory=dict)
    repos: dict[tuple[str, str], Repo] = field(default_factory=dict)
    webhooks: dict[str, Webhook] = field(default_factory=dict)
    #: Trusted Publishers (evalbot_dev.emulator.publishers): OIDC issuers the Hub accepts
    #: (issuer URL -> JWKS URL), and the publishers registered on each repo.
    oidc_issuers: dict[str, str] = field(default_factory=dict)
    publishers: dict[tuple[str, str], list[Publisher]] = field(default_factory=dict)
    #: Where resolve sends LFS downloads (set by `EmulatorServer` once it listens).
    cdn: Cdn = field(default_factory=Cdn)
    listeners: list[Listener] = field(default_factory=list)
    lock: threading.RLock = field(default_factory=threading.RLock, repr=False)

    @contextmanager
    def locked(self) -> Iterator[Self]:
        with self.lock:
            yield self
