"""Operators sign in with who they are: "Sign in with Hugging Face" against the Hub emulator's
OpenID provider, an allow-list of users and orgs pinned by id in `config/bot.yaml`, state and
PKCE checked; the webhook secret is no operator token. A running `evalbot web`, a real Redis,
the emulator over HTTP, and two clients (the operator's browser and another visitor's)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import httpx2
import pytest
import yaml

from bot.web.signin import SIGNIN_SLOTS
from evalbot_dev.devstack.listening import ServerAddress
from evalbot_dev.devstack.redis import RedisServer
from evalbot_dev.devstack.waiting import wait_until
from evalbot_dev.emulator.oauth import OAuthApp
from evalbot_dev.emulator.server import EmulatorServer
from tests.support.emulator import ORG, TOKENS, standard_state
from tests.support.processes import TEST_SECRET, ChildProcess, bot_environment

pytestmark = pytest.mark.integration

OPERATOR_VIEW = "Parked events"


@dataclass
class Pages:
    url: str
    hub: EmulatorServer
    app: OAuthApp
    process: ChildProcess

    def log(self) -> str:
        return self.process.output()


def start_web(
    tmp_path: Path,
    redis_server: RedisServer,
    hub: EmulatorServer,
    address: ServerAddress,
    **env: str,
) -> ChildProcess:
    """`evalbot web` on `address`, configured from `tmp_path` (its bot.yaml) and `env`."""
    environment = bot_environment(
        redis_server.url,
        HF_ENDPOINT=hub.url,
        HF_TOKEN=TOKENS["evalbot"],
        EVALBOT_BOT_NAME="evalbot",
        EVALBOT_CONFIG_DIR=str(tmp_path),
        EVALBOT_LOG_LEVEL="INFO",
        **env,
    )
    process = ChildProcess([sys.executable, "-m", "bot", "web"], environment, tmp_path / "web.log")
    process.spawn(address)
    try:
        wait_until(
            lambda: httpx2.get(f"{address.url}/web/healthz", timeout=1).status_code == 200,
            timeout=30,
            what="evalbot web to answer",
            process=process.process,
            log=process.log_path,
        )
    except BaseException:
        process.stop()
        raise
    return process


@pytest.fixture
def hub() -> Iterator[EmulatorServer]:
    with EmulatorServer(standard_state()) as server:
        yield server


@pytest.fixture
def pages(tmp_path: Path, redis_server: RedisServer, hub: EmulatorServer) -> Iterator[Pages]:
    state = hub.state
    operators = {
        "users": [{"name": "alice", "id": state.account("alice").id}],
        "orgs": [{"name": ORG, "id": state.account(ORG).id}],
    }
    (tmp_path / "bot.yaml").write_text(yaml.safe_dump({"operators": operators}))
    address = ServerAddress()
    app = hub.emulator.oauth.register_app([f"{address.url}/login/callback"])
    process = start_web(
        tmp_path,
        redis_server,
        hub,
        address,
        OAUTH_CLIENT_ID=app.client_id,
        OAUTH_CLIENT_SECRET=app.client_secret,
        OPENID_PROVIDER_URL=hub.url,
        OAUTH_SCOPES="openid profile",
        EVALBOT_WEB_PUBLIC_URL=address.url,
    )
    try:
        yield Pages(address.url, hub, app, process)
    finally:
        process.stop()
        address.close()


def begin(pages: Pages, browser: httpx2.Client) -> str:
    """`/login` in `browser`: the authorization URL it is sent to (its state cookie is set)."""
    started = browser.get(f"{pages.url}/login")
    assert started.status_code == 303
    location = started.headers["location"]
    assert location.startswith(f"{pages.hub.url}/oauth/authorize?")
    return str(location)


def consent(pages: Pages, authorize_url: str, user: str) -> str:
    """The Hub's side: `user` (signed in on the Hub) approves; the callback URL it returns."""
    answer = httpx2.get(
        authorize_url, headers={"Authorization": f"Bearer {TOKENS[user]}"}, timeout=10
    )
    assert answer.status_code == 302, answer.text
    callback = str(answer.headers["location"])
    assert callback.startswith(f"{pages.url}/login/callback?")
    return callback


def sign_in(pages: Pages, browser: httpx2.Client, user: str) -> httpx2.Response:
    return browser.get(consent(pages, begin(pages, browser), user))


def is_operator(pages: Pages, browser: httpx2.Client) -> bool:
    return OPERATOR_VIEW in browser.get(f"{pages.url}/status").text


def test_an_allowed_user_signs_in_with_the_hub_and_another_visitor_is_not(pages: Pages) -> None:
    with httpx2.Client(timeout=10) as operator, httpx2.Client(timeout=10) as visitor:
        assert "Sign in with Hugging Face" in visitor.get(f"{pages.url}/status").text
        authorize = begin(pages, operator)
        sent = parse_qs(urlsplit(authorize).query)
        assert sent["code_challenge_method"] == ["S256"]
        assert sent["redirect_uri"] == [f"{pages.url}/login/callback"]
        assert all(len(sent[name][0]) >= 43 for name in ("state", "nonce", "code_challenge"))
        done = operator.get(consent(pages, authorize, "alice"))
        assert done.status_code == 303
        assert done.headers["location"] == "/status"
        cookie = done.headers["set-cookie"]
        assert "evalbot_admin=" in cookie
        assert "HttpOnly" in cookie
        assert "SameSite=strict" in cookie
        assert is_operator(pages, operator)
        assert not is_operator(pages, visitor)
    wait_until(lambda: '"signed in"' in pages.log(), timeout=10, what="the sign-in's audit line")
    assert pages.hub.state.account("alice").id in pages.log()


def test_org_members_on_the_list_sign_in_and_strangers_are_refused(pages: Pages) -> None:
    with httpx2.Client(timeout=10) as carol:
        assert sign_in(pages, carol, "carol").status_code == 303  # a member of evals-org
        assert is_operator(pages, carol)
    with httpx2.Client(timeout=10) as bob:
        refused = sign_in(pages, bob, "bob")
        assert refused.status_code == 403
        assert "Sign-in failed" in refused.text
        assert "allow-list" not in refused.text  # the reason is for the audit log only
        assert not is_operator(pages, bob)
    bob_id = pages.hub.state.account("bob").id
    wait_until(
        lambda: "not on the operators' allow-list: " + bob_id in pages.log(),
        timeout=10,
        what="the refusal's audit line",
    )


def test_an_org_member_who_has_not_met_the_orgs_sso_or_mfa_is_refused(pages: Pages) -> None:
    """The Hub lists a member whose org requires SSO (or MFA) they have not completed, with
    the requirement pending: the org itself would not let them in yet, nor do the pages."""
    for pending in (["sso"], ["mfa"], ["ip"]):
        pages.hub.emulator.oauth.security_restrictions["carol"] = pending
        try:
            with httpx2.Client(timeout=10) as carol:
                assert sign_in(pages, carol, "carol").status_code == 403, pending
                assert not is_operator(pages, carol)
        finally:
            pages.hub.emulator.oauth.security_restrictions.clear()


def test_a_callback_from_another_browser_is_refused_before_the_code_is_spent(
    pages: Pages,
) -> None:
    """Login CSRF: a code and state made for the attacker's own sign-in, opened in the
    victim's browser, must not sign the victim in as the attacker (nor be exchanged)."""
    with httpx2.Client(timeout=10) as attacker, httpx2.Client(timeout=10) as victim:
        planted = consent(pages, begin(pages, attacker), "alice")
        begin(pages, victim)  # the victim has a sign-in of its own under way
        answer = victim.get(planted)
        assert answer.status_code == 403
        assert not is_operator(pages, victim)
        code = parse_qs(urlsplit(planted).query)["code"][0]
        assert code not in pages.hub.emulator.oauth.exchanges


def test_a_code_from_another_sign_in_fails_the_pkce_check(pages: Pages) -> None:
    """The browser's own state, but a code issued to another sign-in (another verifier): the
    Hub refuses the exchange, and nobody is signed in."""
    with httpx2.Client(timeout=10) as browser:
        first = consent(pages, begin(pages, browser), "alice")
        second = consent(pages, begin(pages, browser), "alice")  # replaces the state cookie
        code = parse_qs(urlsplit(first).query)["code"][0]
        state = parse_qs(urlsplit(second).query)["state"][0]
        mixed = f"{pages.url}/login/callback?code={code}&state={state}"
        assert browser.get(mixed).status_code == 403
        assert code in pages.hub.emulator.oauth.exchanges  # it was tried, and refused
        assert not is_operator(pages, browser)


def test_a_spent_state_cookie_cannot_be_used_twice(pages: Pages) -> None:
    with httpx2.Client(timeout=10) as browser:
        callback = consent(pages, begin(pages, browser), "alice")
        assert browser.get(callback).status_code == 303
        browser.cookies.clear()
        assert browser.get(callback).status_code == 403


def test_the_webhook_secret_is_no_operator_token(
    tmp_path: Path, redis_server: RedisServer, hub: EmulatorServer
) -> None:
    address = ServerAddress()
    process = start_web(tmp_path, redis_server, hub, address)
    try:
        with httpx2.Client(timeout=10) as visitor:
            answer = visitor.post(
                f"{address.url}/status/login",
                data={"token": TEST_SECRET},
                headers={"origin": address.url},
            )
            assert answer.status_code != 303
            assert not is_operator_at(address.url, visitor)
            assert "No operator sign-in is set up" in visitor.get(f"{address.url}/status").text
    finally:
        process.stop()
        address.close()


def is_operator_at(url: str, browser: httpx2.Client) -> bool:
    return OPERATOR_VIEW in browser.get(f"{url}/status").text


@pytest.mark.parametrize(
    ("claim", "value"),
    [
        ("nonce", "a-nonce-of-another-sign-in"),
        ("aud", "another-client"),
        ("iss", "https://issuer.example"),
        ("sub", "6560b0f7e0d5d2c4a1b2c3ff"),  # userinfo names alice: subjects differ
        ("exp", 1_000_000_000),
    ],
)
def test_an_id_token_not_made_for_this_sign_in_is_refused(
    pages: Pages, claim: str, value: object
) -> None:
    pages.hub.emulator.oauth.id_token_overrides[claim] = value
    with httpx2.Client(timeout=10) as browser:
        assert sign_in(pages, browser, "alice").status_code == 403
        assert not is_operator(pages, browser)
    pages.hub.emulator.oauth.id_token_overrides.clear()
    with httpx2.Client(timeout=10) as browser:  # the same user, an honest provider
        assert sign_in(pages, browser, "alice").status_code == 303


def test_callbacks_waiting_on_a_slow_hub_hold_a_bounded_number_of_threads(pages: Pages) -> None:
    """Six callbacks at once while the token endpoint takes 3 s: four wait for it, two are
    answered 503 at once, and the pages keep answering meanwhile."""
    browsers = [httpx2.Client(timeout=30) for _ in range(SIGNIN_SLOTS + 2)]
    try:
        callbacks = [consent(pages, begin(pages, b), "alice") for b in browsers]
        pages.hub.emulator.oauth.token_delay_s = 3.0
        with ThreadPoolExecutor(len(browsers)) as pool:
            pending = [
                pool.submit(browser.get, callback)
                for browser, callback in zip(browsers, callbacks, strict=True)
            ]
            refused = wait_until(
                lambda: sum(1 for f in pending if f.done()) >= 2 or None,
                timeout=2.5,
                what="the callbacks beyond the slots answered before the Hub",
            )
            assert refused
            assert httpx2.get(f"{pages.url}/status", timeout=2).status_code == 200
            statuses = sorted(future.result().status_code for future in pending)
        assert statuses == [303] * SIGNIN_SLOTS + [503, 503]
    finally:
        pages.hub.emulator.oauth.token_delay_s = 0.0
        for browser in browsers:
            browser.close()


def test_sign_ins_waiting_on_a_slow_discovery_hold_a_bounded_number_of_threads(
    pages: Pages,
) -> None:
    """Before the provider's discovery document is read (a fresh start, or a Hub that was
    down), each `/login` asks the Hub for it: six at once while it takes 3 s, four wait and
    two are answered 503 at once, and the pages keep answering meanwhile."""
    browsers = [httpx2.Client(timeout=30) for _ in range(SIGNIN_SLOTS + 2)]
    pages.hub.emulator.oauth.discovery_delay_s = 3.0
    try:
        with ThreadPoolExecutor(len(browsers)) as pool:
            pending = [pool.submit(browser.get, f"{pages.url}/login") for browser in browsers]
            refused = wait_until(
                lambda: sum(1 for f in pending if f.done()) >= 2 or None,
                timeout=2.5,
                what="the sign-ins beyond the slots answered before the Hub",
            )
            assert refused
            assert httpx2.get(f"{pages.url}/status", timeout=2).status_code == 200
            statuses = sorted(future.result().status_code for future in pending)
        assert statuses == [303] * SIGNIN_SLOTS + [503, 503]
    finally:
        pages.hub.emulator.oauth.discovery_delay_s = 0.0
        for browser in browsers:
            browser.close()
