"""`HfHubClient` reading a PR whose results file is stored in LFS, against the emulator: the
file is read through the 302 to the CDN origin, the bot's token never reaches that origin,
and an oversized LFS file is refused from its declared size without touching the CDN."""

from __future__ import annotations

import pytest

from bot.hub.client import HfHubClient
from bot.hub.errors import HubFileTooLarge
from evalbot_dev.emulator.server import EmulatorServer
from tests.integration.hub.conftest import GPQA_ENTRY
from tests.support.emulator import MODEL, open_state_pr

pytestmark = pytest.mark.integration

PATH = ".eval_results/gpqa_mini.yaml"


def test_an_lfs_results_file_is_listed_and_read_like_any_other(
    emulated_hub: EmulatorServer, bot: HfHubClient
) -> None:
    num, head = open_state_pr(emulated_hub, "alice", {PATH: GPQA_ENTRY}, lfs=[PATH])
    pr = bot.pull_request(MODEL, num)
    assert pr.head_sha == head
    assert pr.result_files == (PATH,)
    assert pr.added_text(PATH) is None  # the diff holds the pointer, not the entry
    assert bot.read_file(MODEL, PATH, head) == GPQA_ENTRY
    (request,) = emulated_hub.cdn_requests()
    assert (request.method, request.status) == ("GET", 200)
    assert not request.authorization


def test_a_50_mb_lfs_file_is_refused_without_being_fetched(
    emulated_hub: EmulatorServer, bot: HfHubClient
) -> None:
    huge = b"- value: 1\n" + b"#" * (50 * 1024 * 1024)
    _num, head = open_state_pr(emulated_hub, "alice", {PATH: huge}, lfs=[PATH])
    with pytest.raises(HubFileTooLarge) as caught:
        bot.read_file(MODEL, PATH, head)
    assert caught.value.size == len(huge)
    assert emulated_hub.cdn_requests() == []
