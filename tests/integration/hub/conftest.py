"""The emulator fixtures, and helpers that open PRs on it with the real `huggingface_hub` client."""

from __future__ import annotations

from typing import Any

import pytest

from bot.hub.client import HfHubClient
from evalbot_dev.emulator.server import EmulatorServer
from tests.support.emulator import MODEL, client, emulated_hub, hub_env, webhook_receiver

__all__ = ["emulated_hub", "hub_env", "open_pr", "push_to_pr", "webhook_receiver"]

#: A live-format entry on the emulator's seeded live benchmark.
GPQA_ENTRY = (
    b"- dataset:\n    id: emulator-samples/gpqa-mini\n    task_id: diamond\n  value: 0.42\n"
)


def open_pr(api: Any, files: dict[str, bytes | None], message: str = "Add results") -> int:
    """Open a PR on `MODEL` with one commit (`None` content deletes the path); its number."""
    from huggingface_hub import CommitOperationAdd, CommitOperationDelete

    operations: list[Any] = [
        CommitOperationDelete(path) if content is None else CommitOperationAdd(path, content)
        for path, content in files.items()
    ]
    info = api.create_commit(MODEL, operations, commit_message=message, create_pr=True)
    assert info.pr_num is not None
    return int(info.pr_num)


def push_to_pr(api: Any, num: int, path: str, content: bytes, message: str = "Update") -> str:
    """Push one more commit to `refs/pr/{num}` (as a contributor does); its SHA."""
    info = api.upload_file(
        path_or_fileobj=content,
        path_in_repo=path,
        repo_id=MODEL,
        revision=f"refs/pr/{num}",
        commit_message=message,
    )
    return str(info.oid)


@pytest.fixture
def bot(emulated_hub: EmulatorServer) -> HfHubClient:
    """The bot's Hub client, with the bot's fine-grained token."""
    return HfHubClient(client(emulated_hub, "evalbot"))
