"""`evalbot submit` reading the results file on main (`bot.submit.pulls.read_main_file`), with
the real `huggingface_hub` client against the emulator over HTTP.

Only the Hub's "no such file" (404 `EntryNotFound`) means main has none. The read went through
`hf_hub_download`, and `EntryNotFoundError` was taken for that answer, but the library raises
its subclass `LocalEntryNotFoundError` when the Hub could not be asked (a connection error, a
5xx, `HF_HUB_OFFLINE`), and returns a cached copy, however old, when it has one: either way the
PR would have replaced main's file with only the new entries, or with a stale main.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from huggingface_hub import constants

from bot.submit.errors import HubUnreachable, SubmitError
from bot.submit.pulls import read_main_file
from evalbot_dev.emulator.faults import RouteFault
from evalbot_dev.emulator.server import EmulatorServer
from evalbot_dev.emulator.state import FileChange
from tests.support.delay_proxy import DelayProxy, running_delay_proxy
from tests.support.emulator import MODEL, TOKENS, client

pytestmark = [pytest.mark.integration, pytest.mark.timeout(60)]

PATH = ".eval_results/gpqa-mini.yaml"  # seeded on main (tests/support/emulator.py)


@pytest.fixture
def hub(
    emulated_hub: EmulatorServer, hub_env: Path, monkeypatch: pytest.MonkeyPatch
) -> EmulatorServer:
    # huggingface_hub's download cache, in the test's folder (the old read wrote to it).
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(hub_env))
    return emulated_hub


@pytest.fixture
def proxy(hub: EmulatorServer) -> Iterator[DelayProxy]:
    """The emulator behind a loopback proxy that can drop the file reads."""
    with running_delay_proxy(urlsplit(hub.url).port or 80) as started:
        yield started


def through(proxy: DelayProxy) -> str:
    return f"http://127.0.0.1:{proxy.port}"


def commit_to_main(hub: EmulatorServer, path: str, content: bytes) -> None:
    state = hub.state
    state.commit(
        state.tokens[TOKENS["alice"]],
        state.find_repo("model", MODEL),
        "main",
        [FileChange(path, content)],
        summary="Update results",
        description="",
    )


def test_main_is_read_and_a_file_main_does_not_have_is_none(hub: EmulatorServer) -> None:
    api = client(hub, "bob")
    assert "value: 41.5" in (read_main_file(api, MODEL, PATH) or "")
    assert read_main_file(api, MODEL, ".eval_results/hle_mini.yaml") is None


def test_a_missing_repo_is_an_error_not_a_missing_file(hub: EmulatorServer) -> None:
    with pytest.raises(SubmitError, match=r"cannot read x\.yaml on alice/nothing main") as raised:
        read_main_file(client(hub, "bob"), "alice/nothing", "x.yaml")
    assert not isinstance(raised.value, HubUnreachable)
    assert "\n" not in str(raised.value)


def test_a_hub_that_answers_503_is_unreachable_not_absent(hub: EmulatorServer) -> None:
    hub.faults.add_rule(RouteFault(pattern="files.resolve", status=503))
    with pytest.raises(HubUnreachable) as raised:
        read_main_file(client(hub, "bob"), MODEL, PATH)
    message = str(raised.value)
    assert message.startswith(f"cannot read {PATH} on {MODEL} main: the Hub at {hub.url}")
    assert "503" in message
    assert "retry, or check HF_ENDPOINT" in message


def test_a_dropped_connection_is_unreachable_not_absent(
    hub: EmulatorServer, proxy: DelayProxy
) -> None:
    proxy.drop_requests(b"/resolve/")
    api = client(hub, "bob")
    api.endpoint = through(proxy)
    with pytest.raises(HubUnreachable, match=f"the Hub at {through(proxy)} is unavailable"):
        read_main_file(api, MODEL, PATH)
    assert proxy.dropped, "the read never reached the proxy"


def test_offline_mode_is_unreachable_not_absent(
    hub: EmulatorServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", True)
    with pytest.raises(HubUnreachable, match="HF_HUB_OFFLINE is set, so the Hub is not asked"):
        read_main_file(client(hub, "bob"), MODEL, PATH)


def test_a_copy_cached_by_an_earlier_download_is_never_read_for_main(
    hub: EmulatorServer, proxy: DelayProxy
) -> None:
    """An earlier `hf_hub_download` of main's file (the user's, or an older evalbot's) left a
    copy in the cache; main has moved on since. With the Hub unreachable the library returned
    that copy, and the PR would have dropped what main gained meanwhile."""
    api = client(hub, "bob")
    api.endpoint = through(proxy)
    api.hf_hub_download(repo_id=MODEL, filename=PATH, revision="main")  # the earlier run
    commit_to_main(
        hub, PATH, b"- {dataset: {id: emulator-samples/gpqa-mini, task_id: diamond}, value: 50}\n"
    )
    proxy.drop_requests(b"/resolve/")
    with pytest.raises(HubUnreachable):
        read_main_file(api, MODEL, PATH)


def test_a_file_that_is_not_utf8_or_over_the_cap_is_an_error(hub: EmulatorServer) -> None:
    commit_to_main(hub, ".eval_results/latin.yaml", "- {notes: café}\n".encode("latin-1"))
    commit_to_main(hub, ".eval_results/huge.yaml", b"#" * (1024 * 1024 + 10))
    api = client(hub, "bob")
    with pytest.raises(SubmitError, match="is not UTF-8"):
        read_main_file(api, MODEL, ".eval_results/latin.yaml")
    with pytest.raises(SubmitError, match="over 1048576 bytes, the bot's cap"):
        read_main_file(api, MODEL, ".eval_results/huge.yaml")
