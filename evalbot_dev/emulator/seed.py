"""Load a state file (YAML or JSON): users, orgs, tokens, seed repos, benchmarks, webhooks,
OAuth apps.

The format is documented in docs/hub-emulator.md. Folders named in the file are read relative
to the file itself: a repo's `dir` becomes its first commit, and every `<org>/<name>/eval.yaml`
under a `benchmarks` dir becomes a dataset repo `org/name` with the benchmark tag.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import yaml

from evalbot_dev.emulator.delivery import DeliverySettings
from evalbot_dev.emulator.model import REPO_TYPES
from evalbot_dev.emulator.oauth import OAuthApp
from evalbot_dev.emulator.state import HubState

SAMPLES = Path(__file__).resolve().parent / "samples"
SAMPLE_STATE = SAMPLES / "state.yaml"
_ROLES: dict[str, Literal["read", "write", "fineGrained"]] = {
    "read": "read",
    "write": "write",
    "fineGrained": "fineGrained",
}
_GATES: dict[object, Literal[False, "auto", "manual"]] = {
    False: False,
    True: "auto",
    "auto": "auto",
    "manual": "manual",
}
_SKIPPED_DIRS = {".git", "__pycache__", ".mypy_cache", ".pytest_cache"}


class StateFileError(ValueError):
    """The state file is unreadable or declares something inconsistent."""


@dataclass
class LoadedState:
    state: HubState
    delivery: DeliverySettings = field(default_factory=DeliverySettings)
    #: OAuth apps to register with the emulator's provider ("Sign in with Hugging Face").
    oauth_apps: list[OAuthApp] = field(default_factory=list)


def read_folder(folder: Path) -> dict[str, bytes]:
    """Every file under `folder` (hidden ones such as `.eval_results/` included, `.git` not)."""
    if not folder.is_dir():
        raise StateFileError(f"seed folder {folder} does not exist")
    files: dict[str, bytes] = {}
    for path in sorted(folder.rglob("*")):
        relative = path.relative_to(folder)
        if path.is_file() and not _SKIPPED_DIRS.intersection(relative.parts):
            files[relative.as_posix()] = path.read_bytes()
    return files


def load_benchmarks(
    state: HubState,
    root: Path,
    *,
    private: bool = False,
    pinned: Mapping[str, str] | None = None,
) -> list[str]:
    """Seed each `root/<org>/<name>/eval.yaml` folder as dataset `org/name`; returns the ids.

    `pinned` maps some of those ids to the commit SHA their files get (see `seed_repo`), so
    results files that pin a real benchmark revision resolve here as on the Hub.
    """
    seeded = []
    pins = dict(pinned or {})
    for eval_yaml in sorted(root.glob("*/*/eval.yaml")):
        folder = eval_yaml.parent
        repo_id = f"{folder.parent.name}/{folder.name}"
        state.seed_repo(
            "dataset",
            repo_id,
            read_folder(folder),
            tags=[state.benchmark_tag],
            private=private,
            sha=pins.pop(repo_id, None),
        )
        seeded.append(repo_id)
    if not seeded:
        raise StateFileError(f"no <org>/<name>/eval.yaml under {root}")
    if pins:
        raise StateFileError(f"pinned benchmarks not under {root}: {sorted(pins)}")
    return seeded


def load_state_file(path: Path) -> LoadedState:
    try:
        text = path.read_text(encoding="utf-8")
        data = json.loads(text) if path.suffix == ".json" else yaml.safe_load(text)
    except (OSError, ValueError, yaml.YAMLError) as exc:
        raise StateFileError(f"cannot read state file {path}: {exc}") from exc
    if not isinstance(data, Mapping):
        raise StateFileError(f"{path}: the top level must be a mapping")
    try:
        return build_state(data, base=path.parent)
    except StateFileError:
        raise
    except (KeyError, TypeError, ValueError) as exc:  # an unknown `gated` value is a KeyError too
        raise StateFileError(f"{path}: malformed entry ({exc!r})") from exc


def build_state(data: Mapping[str, Any], *, base: Path) -> LoadedState:
    settings = dict(data.get("settings") or {})
    state = HubState(benchmark_tag=str(settings.get("benchmark_tag", "benchmark:official")))
    delivery = DeliverySettings(
        send_webhook_id=bool(settings.get("webhook_id_header", True)),
        **dict(settings.get("delivery") or {}),
    )
    for user in data.get("users") or []:
        state.add_user(str(user["name"]), fullname=user.get("fullname"), email=user.get("email"))
        for token in user.get("tokens") or []:
            spec = {"value": token} if isinstance(token, str) else dict(token)
            role = _ROLES.get(str(spec.get("role", "write")))
            if role is None:
                raise StateFileError(f"user {user['name']}: unknown token role {spec.get('role')}")
            state.add_token(
                str(spec["value"]),
                str(user["name"]),
                role,
                spec.get("permissions"),
                spec.get("display_name"),
            )
    for org in data.get("orgs") or []:
        members = org.get("members") or {}
        if isinstance(members, list):
            members = dict.fromkeys(members, "write")
        for member in members:
            if member not in state.accounts:
                raise StateFileError(f"org {org['name']}: unknown member {member}")
        state.add_org(str(org["name"]), {str(k): str(v) for k, v in members.items()})
    for repo in data.get("repos") or []:
        repo_type = repo.get("type", "model")
        if repo_type not in REPO_TYPES:
            raise StateFileError(f"repo {repo['id']}: unknown type {repo_type}")
        files = read_folder(base / repo["dir"]) if repo.get("dir") else {}
        for name, content in (repo.get("files") or {}).items():
            files[str(name)] = str(content).encode()
        state.seed_repo(
            repo_type,
            str(repo["id"]),
            files,
            private=bool(repo.get("private", False)),
            tags=[str(tag) for tag in repo.get("tags") or []],
            gated=_GATES[repo.get("gated", False)],
            granted=[str(user) for user in repo.get("granted") or []],
            lfs=[str(path) for path in repo.get("lfs") or []],
        )
    for benchmarks in data.get("benchmarks") or []:
        load_benchmarks(
            state,
            base / benchmarks["dir"],
            private=bool(benchmarks.get("private")),
            pinned={str(k): str(v) for k, v in (benchmarks.get("pinned") or {}).items()},
        )
    for hook in data.get("webhooks") or []:
        state.add_webhook(
            str(hook["owner"]),
            str(hook["url"]),
            list(hook.get("watched") or []),
            list(hook.get("domains") or ["repo", "discussion"]),
            hook.get("secret"),
        )
    apps = [_oauth_app(raw, index) for index, raw in enumerate(data.get("oauth_apps") or [])]
    if len({app.client_id for app in apps}) != len(apps):
        raise StateFileError("oauth_apps: two apps share a client_id")
    return LoadedState(state, delivery, apps)


def _oauth_app(raw: object, index: int) -> OAuthApp:
    """One `oauth_apps` entry: the app a Space's `hf_oauth: true` (or an operator's Connected
    apps settings) makes, with the client id and secret the pages are then given."""
    where = f"oauth_apps[{index}]"
    known = {"client_id", "client_secret", "redirect_uris", "scopes"}
    if not isinstance(raw, Mapping) or not set(raw) <= known:
        raise StateFileError(f"{where}: expected a mapping of {sorted(known)}")
    texts = {name: raw.get(name) for name in ("client_id", "client_secret")}
    for name, value in texts.items():
        if not isinstance(value, str) or not value:
            raise StateFileError(f"{where}.{name}: expected a non-empty string")
    uris = raw.get("redirect_uris")
    if not isinstance(uris, list) or not uris or not all(isinstance(u, str) and u for u in uris):
        raise StateFileError(f"{where}.redirect_uris: expected a non-empty list of URLs")
    scopes = raw.get("scopes", ["openid", "profile"])
    if not isinstance(scopes, list) or "openid" not in scopes:
        raise StateFileError(f"{where}.scopes: expected a list that includes openid")
    return OAuthApp(
        str(texts["client_id"]),
        str(texts["client_secret"]),
        frozenset(uris),
        frozenset(str(scope) for scope in scopes),
    )
