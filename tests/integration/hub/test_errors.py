"""Hub failures through `HfHubClient`, as the emulator answers them: permanent or transient."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator

import pytest

from bot.hub.client import HfHubClient
from bot.hub.errors import HubPermanentError, HubTransientError
from bot.hub.timeouts import use_hub_timeout
from evalbot_dev.emulator.faults import RouteFault
from evalbot_dev.emulator.server import EmulatorServer
from tests.integration.hub.conftest import GPQA_ENTRY, open_pr
from tests.support.emulator import BENCHMARKS, MODEL, client

pytestmark = pytest.mark.integration

MISSING_SHA = "f" * 40


@pytest.mark.parametrize(
    ("call", "code"),
    [
        (lambda bot: bot.read_file("alice/nothing", "README.md", "main"), "RepoNotFound"),
        (lambda bot: bot.read_file(MODEL, "absent.yaml", "main"), "EntryNotFound"),
        (lambda bot: bot.read_file(MODEL, "README.md", MISSING_SHA), "RevisionNotFound"),
        (lambda bot: bot.dataset_revision("nobody/nothing", None), "RepoNotFound"),
        (lambda bot: bot.dataset_revision(BENCHMARKS[0], "no-such-branch"), "RevisionNotFound"),
        (lambda bot: bot.pull_request("alice/nothing", 1), "RepoNotFound"),
    ],
)
def test_missing_things_are_permanent_not_found(
    bot: HfHubClient, call: Callable[[HfHubClient], object], code: str
) -> None:
    with pytest.raises(HubPermanentError) as caught:
        call(bot)
    assert caught.value.not_found
    assert caught.value.code == code
    assert caught.value.status == 404


def test_a_missing_discussion_is_not_found(bot: HfHubClient) -> None:
    with pytest.raises(HubPermanentError) as caught:
        bot.pull_request(MODEL, 99)
    assert caught.value.not_found


def test_read_file_at_a_sha_is_capped(emulated_hub: EmulatorServer, bot: HfHubClient) -> None:
    main_sha = client(emulated_hub, "alice").model_info(MODEL).sha
    readme = bot.read_file(MODEL, "README.md", main_sha)
    assert readme.startswith(b"---\n")
    assert len(readme) > 5
    assert bot.read_file(MODEL, "README.md", main_sha, max_bytes=4) == readme[:5]


@pytest.mark.parametrize(
    ("route", "call"),
    [
        ("discussions.details", lambda bot, num: bot.pull_request(MODEL, num)),
        ("files.resolve", lambda bot, num: bot.read_file(MODEL, "README.md", "main")),
        ("repos.info_at_revision", lambda bot, num: bot.dataset_revision(BENCHMARKS[0], "main")),
        ("discussions.comment", lambda bot, num: bot.post_comment(MODEL, num, "hi")),
    ],
)
def test_rate_limit_is_transient_with_the_hub_reset(
    emulated_hub: EmulatorServer,
    bot: HfHubClient,
    route: str,
    call: Callable[[HfHubClient, int], object],
) -> None:
    num = open_pr(client(emulated_hub, "bob"), {".eval_results/gpqa.yaml": GPQA_ENTRY})
    emulated_hub.faults.add_rule(RouteFault(pattern=route, status=429, times=1, reset_s=17))
    with pytest.raises(HubTransientError) as caught:
        call(bot, num)
    assert caught.value.status == 429
    assert caught.value.retry_after == 17.0
    call(bot, num)  # the fault was for one request only: the next goes through


@pytest.mark.parametrize("status", [500, 502, 503, 504])
def test_server_errors_are_transient(
    emulated_hub: EmulatorServer, bot: HfHubClient, status: int
) -> None:
    emulated_hub.faults.add_rule(RouteFault(pattern="repos.info*", status=status, times=1))
    with pytest.raises(HubTransientError) as caught:
        bot.dataset_revision(BENCHMARKS[0], None)
    assert caught.value.status == status
    assert caught.value.retry_after is None


def test_a_quota_exhausted_answers_with_the_window_reset(
    emulated_hub: EmulatorServer, bot: HfHubClient
) -> None:
    from evalbot_dev.emulator.faults import Quota

    emulated_hub.faults.set_quota(Quota(api=1, window_s=300))
    bot.dataset_revision(BENCHMARKS[0], None)
    with pytest.raises(HubTransientError) as caught:
        bot.dataset_revision(BENCHMARKS[0], None)
    assert caught.value.status == 429
    assert caught.value.retry_after is not None
    assert 1 <= caught.value.retry_after <= 300


def test_a_bad_token_is_permanent_but_not_not_found(emulated_hub: EmulatorServer) -> None:
    from huggingface_hub import HfApi

    revoked = HfHubClient(HfApi(endpoint=emulated_hub.url, token="hf_revoked"))
    with pytest.raises(HubPermanentError) as caught:
        revoked.dataset_revision(BENCHMARKS[0], None)
    assert caught.value.status == 401
    assert not caught.value.not_found


def test_a_comment_whose_answer_was_lost_is_found_on_reread(
    emulated_hub: EmulatorServer, bot: HfHubClient
) -> None:
    """A 504 after the write: the retry must look for its marker first, or it posts twice."""
    num = open_pr(client(emulated_hub, "bob"), {".eval_results/gpqa.yaml": GPQA_ENTRY})
    emulated_hub.faults.add_rule(
        RouteFault(pattern="discussions.comment", status=504, times=1, after_write=True)
    )
    with pytest.raises(HubTransientError):
        bot.post_comment(MODEL, num, "<!-- evalbot -->\nreport")
    found = bot.pull_request(MODEL, num).find_bot_comment("evalbot", "<!-- evalbot -->")
    assert found is not None
    bot.edit_comment(MODEL, num, found.id, "<!-- evalbot -->\nreport, again")
    assert [c.content for c in emulated_hub.comments(MODEL, num) if c.author == "evalbot"] == [
        "<!-- evalbot -->\nreport, again"
    ]


@pytest.fixture
def hub_timeout_1s() -> Iterator[None]:
    from huggingface_hub import set_client_factory
    from huggingface_hub.utils._http import default_client_factory

    use_hub_timeout(1.0)
    yield
    set_client_factory(default_client_factory)  # the library's own, for the other tests


@pytest.mark.usefixtures("hub_timeout_1s")
def test_a_hub_that_never_answers_is_a_transient_error_within_the_timeout(
    emulated_hub: EmulatorServer, bot: HfHubClient
) -> None:
    """huggingface_hub's client waits for ever; with the bot's timeout a hung request fails
    as transient (the task retries), here after 1 s instead of a 4 s hang."""
    num = open_pr(client(emulated_hub, "bob"), {".eval_results/gpqa.yaml": GPQA_ENTRY})
    emulated_hub.faults.add_rule(RouteFault(pattern="discussions.details", latency_s=4.0))
    started = time.monotonic()
    with pytest.raises(HubTransientError):
        bot.pull_request(MODEL, num)
    assert time.monotonic() - started < 3.0
    emulated_hub.faults.clear()
    assert bot.pull_request(MODEL, num).num == num  # the Hub answers again: so does the client
