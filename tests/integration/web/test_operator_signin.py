"""Operators sign in with who they are: "Sign in with Hugging Face" against the Hub emulator's
OpenID provider, an allow-list of users and orgs pinned by id in `config/bot.yaml`, state and
PKCE checked; the webhook secret is no operator token. A running `evalbot web`, a real Redis,
the emulator over HTTP, and two clients (the operator's browser and another visitor's)."""

from __future__ import annotations

import sys
import time
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
from tests.support.processes import TEST_SECRET, TEST_TUNING, ChildProcess, bot_environment
from tests.support.tuning import tuned

pytestmark = pytest.mark.integration

OPERATOR_VIEW = "Parked events"
#: The pages' `MEMBERSHIP_RECHECK_S` in these tests (the product's is 120 s).
MEMBERSHIP_RECHECK_S = 1
#: How long a change at the Hub may take to show, past the recheck: the pages' own latency.
SLACK_S = 10


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
    hub_url: str,
    address: ServerAddress,
    **env: str,
) -> ChildProcess:
    """`evalbot web` on `address`, configured from `tmp_path` (its bot.yaml) and `env`."""
    environment = bot_environment(
        redis_server.url,
        HF_ENDPOINT=hub_url,
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
        hub.url,
        address,
        OAUTH_CLIENT_ID=app.client_id,
        OAUTH_CLIENT_SECRET=app.client_secret,
        OPENID_PROVIDER_URL=hub.url,
        OAUTH_SCOPES="openid profile",
        EVALBOT_WEB_PUBLIC_URL=address.url,
        # an org member's session asks the Hub again after a second, not two minutes
        **tuned({**TEST_TUNING, "bot.web.guards.MEMBERSHIP_RECHECK_S": MEMBERSHIP_RECHECK_S}),
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


def without_operator_view(pages: Pages, browser: httpx2.Client) -> str | None:
    """The status page's text when it shows `browser` no operator view, else None."""
    text = browser.get(f"{pages.url}/status").text
    return text if OPERATOR_VIEW not in text else None


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


def test_an_operator_removed_from_the_org_loses_the_operator_view(pages: Pages) -> None:
    """carol is an operator through evals-org; once the org drops her, her session ends at the
    next recheck (the view gone, her cookie dropped, the reason audited), while alice, listed
    in person, keeps hers."""
    with httpx2.Client(timeout=10) as carol, httpx2.Client(timeout=10) as alice:
        assert sign_in(pages, carol, "carol").status_code == 303
        assert sign_in(pages, alice, "alice").status_code == 303
        assert is_operator(pages, carol)
        state = pages.hub.state
        with state.locked():
            del state.members[ORG]["carol"]
        started = time.monotonic()
        ended = wait_until(
            lambda: without_operator_view(pages, carol),
            timeout=MEMBERSHIP_RECHECK_S + SLACK_S,
            what="carol's operator view to go once she left the org",
            process=pages.process.process,
            log=pages.process.log_path,
        )
        assert time.monotonic() - started <= MEMBERSHIP_RECHECK_S + SLACK_S
        assert "Your operator session has ended" in ended
        assert "evalbot_admin" not in carol.cookies  # the session's cookie is dropped
        assert not is_operator(pages, carol)
        assert is_operator(pages, alice)
        replay = carol.post(
            f"{pages.url}/status/replay", data={"digest": "x"}, headers={"origin": pages.url}
        )
        assert replay.status_code == 403
    carol_id = pages.hub.state.account("carol").id
    wait_until(
        lambda: '"operator session ended"' in pages.log() and carol_id in pages.log(),
        timeout=10,
        what="the session's end in the audit log",
    )


def test_a_hub_that_cannot_confirm_the_membership_withholds_the_operator_view(
    pages: Pages,
) -> None:
    """Fail closed: past the recheck, a userinfo that fails is not "still a member"; the page
    says the Hub could not confirm, and the view comes back once it answers."""
    oauth = pages.hub.emulator.oauth
    with httpx2.Client(timeout=10) as carol, httpx2.Client(timeout=10) as alice:
        assert sign_in(pages, carol, "carol").status_code == 303
        assert sign_in(pages, alice, "alice").status_code == 303
        assert is_operator(pages, carol)
        oauth.userinfo_failure_status = 503
        try:
            withheld = wait_until(
                lambda: without_operator_view(pages, carol),
                timeout=MEMBERSHIP_RECHECK_S + SLACK_S,
                what="carol's operator view withheld while the Hub fails",
                process=pages.process.process,
                log=pages.process.log_path,
            )
            assert "did not confirm" in withheld
            assert "evalbot_admin" in carol.cookies  # not ended: the Hub said nothing
            assert is_operator(pages, alice)  # listed in person: no Hub read needed
        finally:
            oauth.userinfo_failure_status = None
        assert is_operator(pages, carol)


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


def test_two_visitors_signing_in_at_once_each_end_as_themselves(pages: Pages) -> None:
    """The sign-in's state lives in each visitor's own cookie: two sign-ins under way at once,
    finished in the other order, each sign in their own visitor, and neither visitor's
    callback works in the other's browser."""
    with httpx2.Client(timeout=10) as alice, httpx2.Client(timeout=10) as bob:
        alice_started, bob_started = begin(pages, alice), begin(pages, bob)
        assert alice.cookies["evalbot_signin"] != bob.cookies["evalbot_signin"]
        alice_callback = consent(pages, alice_started, "alice")
        bob_callback = consent(pages, bob_started, "bob")
        assert bob.get(alice_callback).status_code == 403  # alice's code in bob's browser
        assert bob.get(bob_callback).status_code == 403  # bob is on no list
        assert alice.get(alice_callback).status_code == 303
        assert is_operator(pages, alice)
        assert not is_operator(pages, bob)
    wait_until(
        lambda: "no sign-in of this browser has that state" in pages.log(),
        timeout=10,
        what="the refused state's audit line",
    )


def test_the_state_cookie_is_signed_http_only_lax_and_scoped_to_the_sign_in(
    pages: Pages,
) -> None:
    with httpx2.Client(timeout=10) as browser:
        started = browser.get(f"{pages.url}/login")
        cookie = started.headers["set-cookie"]
        assert cookie.startswith("evalbot_signin=")
        attributes = {part.strip().lower() for part in cookie.split(";")[1:]}
        assert {"httponly", "samesite=lax", "path=/login", "max-age=600"} <= attributes
        assert "secure" not in attributes  # plain http on loopback: the redirect is http
        value = browser.cookies["evalbot_signin"]
        browser.cookies.set("evalbot_signin", value[:-2] + ("AA" if value[-2:] != "AA" else "BB"))
        callback = consent(pages, str(started.headers["location"]), "alice")
        assert browser.get(callback).status_code == 403  # a cookie edited by its holder
        code = parse_qs(urlsplit(callback).query)["code"][0]
        assert code not in pages.hub.emulator.oauth.exchanges


def test_the_state_cookie_is_secure_when_the_pages_are_served_over_https(
    tmp_path: Path, redis_server: RedisServer, hub: EmulatorServer
) -> None:
    alice = {"name": "alice", "id": hub.state.account("alice").id}
    (tmp_path / "bot.yaml").write_text(yaml.safe_dump({"operators": {"users": [alice]}}))
    app = hub.emulator.oauth.register_app(["https://pages.example/login/callback"])
    address = ServerAddress()
    process = start_web(
        tmp_path,
        redis_server,
        hub.url,
        address,
        OAUTH_CLIENT_ID=app.client_id,
        OAUTH_CLIENT_SECRET=app.client_secret,
        OPENID_PROVIDER_URL=hub.url,
        EVALBOT_WEB_PUBLIC_URL="https://pages.example",
    )
    try:
        started = httpx2.get(f"{address.url}/login", timeout=10)
        assert started.status_code == 303
        attributes = {p.strip().lower() for p in started.headers["set-cookie"].split(";")[1:]}
        assert {"secure", "httponly", "samesite=lax", "path=/login"} <= attributes
    finally:
        process.stop()
        address.close()


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
    process = start_web(tmp_path, redis_server, hub.url, address)
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


EMULATOR_STATE = """\
users:
  - {name: alice, tokens: [hf_alice_signs_in]}
  - {name: bob, tokens: [hf_bob_signs_in]}
oauth_apps:
  - client_id: evalbot-pages
    client_secret: pages-client-secret
    redirect_uris: ["%s/login/callback"]
"""


def test_sign_in_against_an_emulator_started_as_a_process(
    tmp_path: Path, redis_server: RedisServer
) -> None:
    """The OAuth app comes from the emulator's state file, the emulator and the pages are
    processes of their own, and the browser is a client outside both: alice (listed) signs
    in, bob (not listed) is refused, and a client secret the app does not have signs no one
    in."""
    pages_address, hub_address = ServerAddress(), ServerAddress()
    state = tmp_path / "hub" / "state.yaml"
    state.parent.mkdir()
    state.write_text(EMULATOR_STATE % pages_address.url)
    hub_url = hub_address.url
    emulator = ChildProcess(
        [sys.executable, "-m", "evalbot_dev.emulator", "--state", str(state)],
        bot_environment(redis_server.url),
        tmp_path / "hub" / "emulator.log",
    )
    emulator.spawn(hub_address)
    try:
        wait_until(
            lambda: httpx2.get(f"{hub_url}/_emulator/health", timeout=1).status_code == 200,
            timeout=30,
            what="the emulator process to answer",
            process=emulator.process,
            log=emulator.log_path,
        )
        who = httpx2.get(
            f"{hub_url}/api/whoami-v2",
            headers={"Authorization": "Bearer hf_alice_signs_in"},
            timeout=10,
        ).json()
        operators = {"users": [{"name": "alice", "id": who["id"]}]}
        (tmp_path / "bot.yaml").write_text(yaml.safe_dump({"operators": operators}))
        web = start_web(
            tmp_path,
            redis_server,
            hub_url,
            pages_address,
            OAUTH_CLIENT_ID="evalbot-pages",
            OAUTH_CLIENT_SECRET="pages-client-secret",
            OPENID_PROVIDER_URL=hub_url,
            EVALBOT_WEB_PUBLIC_URL=pages_address.url,
        )
        try:
            pages = pages_address.url
            for user, signed_in in (("alice", True), ("bob", False)):
                with httpx2.Client(timeout=10) as browser:
                    authorize = browser.get(f"{pages}/login").headers["location"]
                    assert authorize.startswith(f"{hub_url}/oauth/authorize?")
                    consented = httpx2.get(
                        authorize,
                        headers={"Authorization": f"Bearer hf_{user}_signs_in"},
                        timeout=10,
                    )
                    assert consented.status_code == 302, consented.text
                    done = browser.get(consented.headers["location"])
                    assert done.status_code == (303 if signed_in else 403), user
                    assert is_operator_at(pages, browser) is signed_in, user
        finally:
            web.stop()
        wrong = ServerAddress()
        web = start_web(
            tmp_path,
            redis_server,
            hub_url,
            wrong,
            OAUTH_CLIENT_ID="evalbot-pages",
            OAUTH_CLIENT_SECRET="not-the-apps-secret",
            OPENID_PROVIDER_URL=hub_url,
            EVALBOT_WEB_PUBLIC_URL=pages_address.url,  # the app's registered redirect
        )
        try:
            with httpx2.Client(timeout=10) as browser:
                authorize = browser.get(f"{wrong.url}/login").headers["location"]
                consented = httpx2.get(
                    authorize, headers={"Authorization": "Bearer hf_alice_signs_in"}, timeout=10
                )
                callback = urlsplit(consented.headers["location"])
                done = browser.get(f"{wrong.url}{callback.path}?{callback.query}")
                assert done.status_code == 403
                assert not is_operator_at(wrong.url, browser)
        finally:
            web.stop()
            wrong.close()
    finally:
        emulator.stop()
        hub_address.close()
        pages_address.close()
