"""`IssuerProcess`: `evalbot issuer` really started (uvicorn, its own process), for the demo,
the end-to-end tests and the benchmark.

It writes what an operator writes (a keyring made by `evalbot keys rotate`, an
`integrations.yaml`) into its directory, starts the issuer with the production environment
(docs/issuer.md) and waits for `/readyz`. The bot trusts it through `bot_config()`, the entry
for `issuers:` in `config/bot.yaml` with its JWKS URL, as production does.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import httpx2
import yaml

from bot.issuer.keyring import rotate
from evalbot_dev.devstack.environment import inherited_environment
from evalbot_dev.devstack.listening import ServerAddress
from evalbot_dev.devstack.oidc import LocalOidcProvider
from evalbot_dev.devstack.stack import _terminate
from evalbot_dev.devstack.waiting import wait_until


@dataclass
class IssuerProcess:
    work_dir: Path
    hub_url: str
    redis_url: str
    providers: Sequence[Mapping[str, Any]] = ()
    integrations: Sequence[Mapping[str, Any]] = ()
    frameworks: Sequence[str] = ("lighteval", "inspect-ai")
    #: Bound before the issuer starts, and inherited by it (evalbot_dev/devstack/listening.py).
    address: ServerAddress = field(default_factory=ServerAddress)
    env: Mapping[str, str] = field(default_factory=dict)
    #: More of the `issuer:` section of its integrations.yaml (`auth_failures: 1000`).
    options: Mapping[str, Any] = field(default_factory=dict)
    process: subprocess.Popen[bytes] | None = None
    _log: IO[bytes] | None = None

    @property
    def port(self) -> int:
        return self.address.port

    @property
    def url(self) -> str:
        return self.address.url

    @property
    def audience(self) -> str:
        return self.url

    @property
    def keyring_dir(self) -> Path:
        return self.work_dir / "keys"

    @property
    def audit_log(self) -> Path:
        return self.work_dir / "audit" / "issuer.jsonl"

    @property
    def integrations_file(self) -> Path:
        return self.work_dir / "integrations.yaml"

    def bot_config(self) -> dict[str, Any]:
        """This issuer's entry for `issuers:` of the bot's `config/bot.yaml` (keys from its
        JWKS URL)."""
        return {
            "issuer": self.url,
            "jwks_url": f"{self.url}/.well-known/jwks.json",
            "frameworks": list(self.frameworks),
            "max_lifetime_s": 3600,
        }

    def environment(self) -> dict[str, str]:
        env = inherited_environment()
        env.update(
            {
                "EVALBOT_ISSUER_URL": self.url,
                "EVALBOT_CONFIG_DIR": str(self.work_dir),
                "REDIS_URL": self.redis_url,
                "HF_ENDPOINT": self.hub_url,
                "HF_HUB_DISABLE_TELEMETRY": "1",
                "HF_HOME": str(self.work_dir / "hf-home"),
                "EVALBOT_LOG_LEVEL": "WARNING",
            }
        )
        env.update(self.env)
        return env

    def write_config(self) -> None:
        self.work_dir.mkdir(parents=True, exist_ok=True)
        if not (self.keyring_dir / "keyring.json").exists():
            rotate(self.keyring_dir)
        document = {
            "issuer": {
                "keyring": str(self.keyring_dir),
                "audit_log": str(self.audit_log),
                **self.options,
            },
            "providers": [dict(p) for p in self.providers],
            "integrations": [dict(i) for i in self.integrations],
        }
        self.integrations_file.write_text(yaml.safe_dump(document, sort_keys=False))

    def start(self) -> IssuerProcess:
        self.write_config()
        self._log = (self.work_dir / "issuer.log").open("ab")
        listen, pass_fds = self.address.spawn_arguments()
        try:
            self.process = subprocess.Popen(  # noqa: S603 - our own interpreter and module
                [sys.executable, "-m", "bot", "issuer", *listen],
                env=self.environment(),
                stdout=self._log,
                stderr=subprocess.STDOUT,
                pass_fds=pass_fds,
                start_new_session=True,
            )
        finally:
            self.address.close()  # the issuer has its own copy
        process = self.process

        def ready() -> str | None:
            if process.poll() is not None:
                return "exited"  # stop waiting: it will never answer
            response = httpx2.get(f"{self.url}/readyz", timeout=1)
            return "ready" if response.status_code == 200 else None

        if wait_until(ready, timeout=30, what="the issuer to answer /readyz") == "exited":
            raise RuntimeError(f"evalbot issuer exited ({process.returncode}):\n{self.logs()}")
        return self

    def logs(self) -> str:
        path = self.work_dir / "issuer.log"
        return path.read_text(errors="replace")[-6000:] if path.exists() else ""

    def stop(self) -> None:
        if self.process is not None:
            _terminate(self.process)
        self.process = None
        self.address.close()
        if self._log is not None:
            self._log.close()
            self._log = None

    def __enter__(self) -> IssuerProcess:
        try:
            return self.start()
        except BaseException:
            self.stop()
            raise

    def __exit__(self, *exc: object) -> None:
        self.stop()


def run_ci_job(
    issuer: IssuerProcess,
    oidc: LocalOidcProvider,
    *,
    hub_url: str,
    hf_token: str | None,
    results: Path | Sequence[Path],
    model_repo: str,
    extra: Sequence[str] = (),
) -> subprocess.CompletedProcess[str]:
    """`evalbot submit` as a GitHub Actions job with `id-token: write` runs it: the OIDC
    request variables of `oidc`, `HF_TOKEN` to open the PR (none at all when `hf_token` is
    None: the PR is then opened through Trusted Publishers), the issuer's URL."""
    outputs = [results] if isinstance(results, Path) else list(results)
    env = inherited_environment()
    env.update(oidc.actions_environment())
    env.update(
        {
            "HF_ENDPOINT": hub_url,
            "HF_HOME": str(outputs[0].parent / "ci-hf-home"),
            "HF_HUB_DISABLE_TELEMETRY": "1",
            "EVALBOT_ISSUER_URL": issuer.url,
        }
    )
    if hf_token is not None:
        env["HF_TOKEN"] = hf_token
    command = ["submit", *map(str, outputs), "--model-repo", model_repo, *extra]
    return subprocess.run(  # noqa: S603 - our own CLI, fixed argv
        [sys.executable, "-m", "bot", *command],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
