"""A local OIDC provider playing GitHub Actions, for the tests, the demo and the benchmark.

A real HTTP server on 127.0.0.1 that serves what a CI provider serves: the discovery document
(`/.well-known/openid-configuration`), its JWKS (RS256 keys, as GitHub and GitLab publish), and
an Actions-style token endpoint (`GET /_actions/token?audience=...` with the job's request
token as a bearer; what `ACTIONS_ID_TOKEN_REQUEST_URL`/`_TOKEN` point at in a workflow). It
mints ID tokens with GitHub's claim names; `mint` lets tests forge the bad ones (expired,
another audience, `alg: none`, an unknown `kid`...). `jwks_available = False` makes its keys
unreachable (503), as a provider outage does.
"""

from __future__ import annotations

import json
import secrets
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

import jwt
from cryptography.hazmat.primitives.asymmetric import rsa
from jwt.algorithms import RSAAlgorithm

TOKEN_PATH = "/_actions/token"  # noqa: S105 - a URL path, not a secret


@dataclass
class Workflow:
    """The job a minted token describes (GitHub's claim names)."""

    repository: str = "acme/evals"
    workflow: str = ".github/workflows/eval.yml"
    ref: str = "refs/heads/main"
    environment: str | None = "release"
    actor: str = "acme-bot"
    #: GitHub's immutable ids of the owner and the repository (what integrations pin).
    repository_owner_id: str = "1001"
    repository_id: str = "2002"

    def claims(self) -> dict[str, Any]:
        owner = self.repository.split("/", 1)[0]
        subject = f"repo:{self.repository}:" + (
            f"environment:{self.environment}" if self.environment else f"ref:{self.ref}"
        )
        claims: dict[str, Any] = {
            "sub": subject,
            "repository": self.repository,
            "repository_owner": owner,
            "repository_owner_id": self.repository_owner_id,
            "repository_id": self.repository_id,
            "workflow_ref": f"{self.repository}/{self.workflow}@{self.ref}",
            "job_workflow_ref": f"{self.repository}/{self.workflow}@{self.ref}",
            "ref": self.ref,
            "sha": secrets.token_hex(20),
            "actor": self.actor,
            "event_name": "push",
            "run_id": str(secrets.randbelow(10**9)),
        }
        if self.environment:
            claims["environment"] = self.environment
        return claims


@dataclass
class LocalOidcProvider:
    """Start with `start()` (or as a context manager); `url` is its `iss`."""

    kid: str = "local-oidc-1"
    lifetime_s: int = 300
    workflow: Workflow = field(default_factory=Workflow)
    #: The request token a job must present at the token endpoint.
    request_token: str = field(default_factory=lambda: secrets.token_urlsafe(16))
    jwks_available: bool = True

    def __post_init__(self) -> None:
        self.key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        self.requests: list[str] = []
        self._lock = threading.Lock()
        provider = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                with provider._lock:
                    provider.requests.append(self.path)
                status, body = provider._answer(self.path, self.headers.get("Authorization"))
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, format: str, *args: Any) -> None:
                return

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self.port = int(self._httpd.server_address[1])
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def jwks_url(self) -> str:
        return f"{self.url}/.well-known/jwks"

    @property
    def token_request_url(self) -> str:
        """What GitHub puts in `ACTIONS_ID_TOKEN_REQUEST_URL` (the client adds `&audience=`)."""
        return f"{self.url}{TOKEN_PATH}?api-version=2.0"

    def provider_config(self, name: str = "github", kind: str = "github") -> dict[str, Any]:
        """This provider's entry for `integrations.yaml`'s `providers` (`kind`: its `type`)."""
        return {"name": name, "issuer": self.url, "algorithms": ["RS256"], "type": kind}

    def pinned_claims(self, *names: str) -> dict[str, str]:
        """The workflow's owner and repository ids, plus the named claims: an integration's
        `claims:` for this job."""
        claims = self.workflow.claims()
        pinned = ("repository_owner_id", "repository_id", *names)
        return {name: str(claims[name]) for name in pinned}

    def jwk(self) -> dict[str, Any]:
        jwk: dict[str, Any] = json.loads(RSAAlgorithm.to_jwk(self.key.public_key()))
        return {**jwk, "kid": self.kid, "use": "sig", "alg": "RS256"}

    def mint(
        self,
        audience: str,
        *,
        overrides: Mapping[str, Any] | None = None,
        drop: tuple[str, ...] = (),
        headers: Mapping[str, Any] | None = None,
        algorithm: str = "RS256",
        key: Any = None,
        now: int | None = None,
    ) -> str:
        """A GitHub-like ID token for `audience`; `overrides`/`drop` reshape its claims."""
        issued = int(time.time()) if now is None else now
        claims: dict[str, Any] = {
            "iss": self.url,
            "aud": audience,
            "iat": issued,
            "nbf": issued,
            "exp": issued + self.lifetime_s,
            "jti": secrets.token_hex(16),
            **self.workflow.claims(),
        }
        claims.update(overrides or {})
        for name in drop:
            claims.pop(name, None)
        header = {"kid": self.kid, **(headers or {})}
        signing_key = self.key if key is None else key
        return jwt.encode(claims, signing_key, algorithm=algorithm, headers=header)

    def _answer(self, path: str, authorization: str | None) -> tuple[int, Any]:
        parts = urlsplit(path)
        if parts.path == "/.well-known/openid-configuration":
            return 200, {
                "issuer": self.url,
                "jwks_uri": f"{self.url}/.well-known/jwks",
                "id_token_signing_alg_values_supported": ["RS256"],
            }
        if parts.path == "/.well-known/jwks":
            if not self.jwks_available:
                return 503, {"message": "unavailable"}
            return 200, {"keys": [self.jwk()]}
        if parts.path == TOKEN_PATH:
            # the scheme in any case, as GitHub takes it (PyPA's `id` sends `bearer`)
            scheme, _, token = (authorization or "").partition(" ")
            if scheme.lower() != "bearer" or token != self.request_token:
                return 401, {"message": "bad request token"}
            audience = parse_qs(parts.query).get("audience", [""])[0]
            if not audience:
                return 400, {"message": "audience required"}
            return 200, {"value": self.mint(audience), "count": 1}
        return 404, {"message": "not found"}

    def actions_environment(self) -> dict[str, str]:
        """The variables a GitHub Actions job with `id-token: write` sees."""
        return {
            "ACTIONS_ID_TOKEN_REQUEST_URL": self.token_request_url,
            "ACTIONS_ID_TOKEN_REQUEST_TOKEN": self.request_token,
            "GITHUB_ACTIONS": "true",
        }

    def start(self) -> LocalOidcProvider:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=10)

    def __enter__(self) -> LocalOidcProvider:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
