"""The Hub's state in memory, and every operation that changes it, split by concern.

All reads and writes go through `HubState` under one re-entrant lock, held only while touching
memory (never during network I/O), so the server's event loop, the webhook workers and a test
thread can use it together. Operations raise `HubError` for anything the Hub would refuse and
report each change that fires webhooks to the registered listeners as a `Trigger`.

`HubState` is one object built in layers, each module one concern and each layer free to use
the ones below it: `base` (the tables and the lock), `accounts`, `webhooks` (every change
emits through it), `repos` (git and LFS), `discussions`, `commits` (to branches and PRs),
`merges`.
"""

from __future__ import annotations

from evalbot_dev.emulator.state.base import CommitOutcome, FileChange, Listener, StateBase, Trigger
from evalbot_dev.emulator.state.merges import Merges

__all__ = ["CommitOutcome", "FileChange", "HubState", "Listener", "StateBase", "Trigger"]


class HubState(Merges):
    """The whole emulated Hub: accounts, repos, discussions, commits, merges and webhooks."""
