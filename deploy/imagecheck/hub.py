"""The Hub side of a scenario: the emulator (seeded like the end-to-end tests), a local token
issuer the bot trusts, a webhook to the receiver, and a signed PR that must get its report.

The emulator is created inside the scenario's network namespace (the caller switched to it),
so it and the containers reach each other on 127.0.0.1 exactly as compose's ports say.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import httpx2
import yaml
from huggingface_hub import HfApi

from bot.report.comment_texts import REPORT_MARKER
from evalbot_dev.devstack.signing import LocalIssuer
from evalbot_dev.devstack.stack import LOCAL_DELIVERY
from evalbot_dev.devstack.waiting import wait_until
from evalbot_dev.devstack.workload import (
    BOT,
    MODEL,
    OWNER_TOKEN,
    open_results_pr,
    seeded_state,
    signed_results_file,
)
from evalbot_dev.emulator.server import EmulatorServer

VERIFIED_BADGE = "✅ verified"


class ScenarioHub:
    """A running emulator plus the issuer; `with ScenarioHub() as hub:`."""

    def __init__(self) -> None:
        self.issuer = LocalIssuer()
        self.server = EmulatorServer(seeded_state(), delivery=LOCAL_DELIVERY)

    def __enter__(self) -> ScenarioHub:
        self.server.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.stop()

    @property
    def url(self) -> str:
        return self.server.url

    def write_config(self, project_config: Path, target: Path, *, operator: bool = False) -> None:
        """The project's config/ with bot.yaml's `issuers:` trusting this run's issuer (the
        stand-in for an operator's config/ listing their issuers) and, with `operator`,
        `operators:` listing the model's owner by id."""
        if target.exists():
            shutil.rmtree(target)
        shutil.copytree(project_config, target)
        bot = yaml.safe_load((target / "bot.yaml").read_text())
        bot["issuers"] = [self.issuer.config()]
        if operator:
            owner = MODEL.split("/")[0]
            bot["operators"] = {"users": [{"name": owner, "id": self.account_id(owner)}]}
        (target / "bot.yaml").write_text(yaml.safe_dump(bot))
        for path in [target, *target.rglob("*")]:
            path.chmod(0o755 if path.is_dir() else 0o644)

    def account_id(self, name: str) -> str:
        with self.server.state.locked() as state:
            return str(state.account(name).id)

    def oauth_app(self, redirect_uri: str) -> dict[str, str]:
        """What the Hub sets in a Space whose card says `hf_oauth: true`: an OAuth app for
        the Space's redirect URI, and its variables."""
        app = self.server.emulator.oauth.register_app([redirect_uri])
        return {
            "OAUTH_CLIENT_ID": app.client_id,
            "OAUTH_CLIENT_SECRET": app.client_secret,
            "OAUTH_SCOPES": " ".join(sorted(app.scopes)),
            "OPENID_PROVIDER_URL": self.url,
        }

    def consent(self, authorize_url: str) -> str:
        """The model's owner, signed in on the Hub, approves: the callback URL the Hub sends
        the browser back to."""
        answer = httpx2.get(
            authorize_url, headers={"Authorization": f"Bearer {OWNER_TOKEN}"}, timeout=10
        )
        if answer.status_code != 302:
            raise AssertionError(f"the Hub's authorize answered {answer.status_code}")
        return str(answer.headers["location"])

    def add_webhook(self, receiver_url: str, secret: str) -> None:
        self.server.state.add_webhook(
            owner=BOT,
            url=f"{receiver_url}/webhooks/hub",
            watched=[{"type": "user", "name": "alice"}],
            domains=["repo", "discussion"],
            secret=secret,
        )

    def open_signed_pr(self, index: int) -> int:
        api = HfApi(endpoint=self.url, token=OWNER_TOKEN)
        return open_results_pr(api, index, signed_results_file(self.issuer, index))

    def reports(self, num: int) -> list[str]:
        return [
            comment.content
            for comment in self.server.comments(MODEL, num)
            if comment.author == BOT and REPORT_MARKER in comment.content
        ]

    def wait_for_verified_report(self, num: int, timeout: float) -> str:
        return wait_until(
            lambda: next((c for c in self.reports(num) if VERIFIED_BADGE in c), None),
            timeout=timeout,
            interval=0.2,
            what=f"a report with a verified badge on PR #{num}",
        )
