"""The state file: the bundled sample loads, and mistakes are reported as StateFileError."""

from __future__ import annotations

from pathlib import Path

import pytest

from evalbot_dev.emulator.errors import HubError
from evalbot_dev.emulator.seed import SAMPLE_STATE, StateFileError, load_state_file

EXAMPLES = Path(__file__).resolve().parents[3] / "examples" / "benchmarks"
PIN = "bafec50ab78c16e774241f7fe89e53f242fcb5ad"


def test_sample_state_loads_users_orgs_repos_and_benchmarks() -> None:
    loaded = load_state_file(SAMPLE_STATE)
    state = loaded.state
    assert state.authenticate("Bearer hf_alice_write") is not None
    assert state.members["evals-org"] == {"alice": "admin", "carol": "write"}
    model = state.get_repo(None, "model", "alice/model")
    head = state.resolve(model, "main")
    assert ".eval_results/gpqa-mini.yaml" in head.files
    benchmark = state.get_repo(None, "dataset", "emulator-samples/hle-mini")
    assert benchmark.tags == ["benchmark:official"]
    assert "eval.yaml" in state.resolve(benchmark, "main").files
    assert loaded.delivery.send_webhook_id is True
    with pytest.raises(HubError) as caught:
        state.authenticate("Bearer hf_unknown")
    assert caught.value.status == 401


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("users:\n  - name: a\n    tokens: [{value: t, role: admin}]\n", "unknown token role"),
        ("orgs:\n  - name: o\n    members: [ghost]\n", "unknown member ghost"),
        ("repos:\n  - id: a/b\n    dir: nowhere\n", "does not exist"),
        ("repos:\n  - id: a/b\n    type: kernel\n", "unknown type"),
        ("benchmarks:\n  - dir: .\n", "no <org>/<name>/eval.yaml"),
        ("- just a list\n", "must be a mapping"),
        ("users:\n  - fullname: nameless\n", "malformed entry"),
        ("users: [\n", "cannot read"),
        ("repos:\n  - id: a/b\n    gated: sometimes\n", "malformed entry"),
        ("repos:\n  - id: a/b\n    lfs: [absent.yaml]\n", "LFS paths not among the files"),
        (f"benchmarks:\n  - dir: {EXAMPLES}\n    pinned: {{x/y: {PIN}}}\n", "not under"),
        (f"benchmarks:\n  - dir: {EXAMPLES}\n    pinned: {{cais/hle: main}}\n", "40-hex"),
        (
            "oauth_apps:\n  - {client_id: a, redirect_uris: [u]}\n",
            r"oauth_apps\[0\]\.client_secret",
        ),
        ("oauth_apps:\n  - {client_id: a, client_secret: s}\n", r"\.redirect_uris: expected"),
        (
            "oauth_apps:\n  - {client_id: a, client_secret: s, redirect_uris: [u], scopes: [x]}\n",
            "includes openid",
        ),
        (
            "oauth_apps:\n  - {client_id: a, client_secret: s, redirect_uris: [u], x: 1}\n",
            "mapping",
        ),
        (
            "oauth_apps:\n  - {client_id: a, client_secret: s, redirect_uris: [u]}\n"
            "  - {client_id: a, client_secret: t, redirect_uris: [v]}\n",
            "share a client_id",
        ),
    ],
)
def test_broken_state_files(tmp_path: Path, text: str, message: str) -> None:
    state = tmp_path / "state.yaml"
    state.write_text(text)
    with pytest.raises(StateFileError, match=message):
        load_state_file(state)


def test_json_state_files_are_accepted(tmp_path: Path) -> None:
    state = tmp_path / "state.json"
    state.write_text(
        '{"users": [{"name": "a", "tokens": ["t"]}],'
        ' "repos": [{"id": "a/m", "files": {"x": "y"}, "gated": true, "granted": ["a"]}]}'
    )
    loaded = load_state_file(state)
    repo = loaded.state.get_repo(None, "model", "a/m")
    assert (repo.gated, repo.granted) == ("auto", {"a"})
    assert loaded.state.read_file(repo, loaded.state.resolve(repo, "main"), "x")[1] == b"y"


def test_lfs_paths_are_stored_as_lfs_objects(tmp_path: Path) -> None:
    state = tmp_path / "state.yaml"
    state.write_text(
        "repos:\n  - id: a/m\n    files: {big.yaml: '- value: 1', small.yaml: x}\n"
        "    lfs: [big.yaml]\n"
    )
    loaded = load_state_file(state).state
    repo = loaded.get_repo(None, "model", "a/m")
    head = loaded.resolve(repo, "main")
    oid, pointer = loaded.read_file(repo, head, "big.yaml")
    stored = loaded.lfs_object(repo, oid)
    assert stored is not None
    assert pointer.startswith(b"version https://git-lfs.github.com/spec/v1\n")
    assert loaded.lfs_content(repo, stored.oid) == b"- value: 1"
    assert loaded.lfs_object(repo, head.files["small.yaml"]) is None


def test_pinned_benchmarks_are_seeded_at_that_commit(tmp_path: Path) -> None:
    state = tmp_path / "state.yaml"
    state.write_text(
        f"benchmarks:\n  - dir: {EXAMPLES}\n    pinned: {{MathArena/aime_2026: {PIN}}}\n"
    )
    loaded = load_state_file(state).state
    pinned = loaded.get_repo(None, "dataset", "MathArena/aime_2026")
    head = loaded.resolve(pinned, PIN)
    assert head is loaded.resolve(pinned, "main")
    assert "eval.yaml" in head.files
    assert set(loaded.resolve(pinned, head.parents[0]).files) == {".gitattributes"}
    other = loaded.get_repo(None, "dataset", "cais/hle")
    assert loaded.resolve(other, "main").sha != PIN


def test_oauth_apps_are_read_as_written(tmp_path: Path) -> None:
    state = tmp_path / "state.yaml"
    state.write_text(
        "oauth_apps:\n  - client_id: pages\n    client_secret: s3cret\n"
        "    redirect_uris: [http://127.0.0.1:8001/login/callback]\n"
    )
    (app,) = load_state_file(state).oauth_apps
    assert (app.client_id, app.client_secret) == ("pages", "s3cret")
    assert app.redirect_uris == {"http://127.0.0.1:8001/login/callback"}
    assert app.scopes == {"openid", "profile"}
