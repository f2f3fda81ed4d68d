"""LFS files in the emulator, as the real client sees them: tree and paths-info `lfs` objects,
resolve answering 302 to a second origin (the CDN), `hf_hub_download` following it without
the token, and the PR diff showing the pointer."""

from __future__ import annotations

import hashlib
from pathlib import Path
from urllib.parse import urlsplit

import httpx2
import pytest
from huggingface_hub import hf_hub_download
from huggingface_hub.errors import RepositoryNotFoundError

from evalbot_dev.emulator.git import blob_oid
from evalbot_dev.emulator.lfs import parse_pointer
from evalbot_dev.emulator.server import EmulatorServer
from tests.support.emulator import MODEL, TOKENS, client, open_state_pr

pytestmark = pytest.mark.integration

PATH = ".eval_results/gpqa_mini.yaml"
CONTENT = b"- dataset:\n    id: emulator-samples/gpqa-mini\n    task_id: diamond\n  value: 43.1\n"
SHA256 = hashlib.sha256(CONTENT).hexdigest()


@pytest.fixture
def lfs_pr(emulated_hub: EmulatorServer) -> tuple[int, str]:
    return open_state_pr(
        emulated_hub, "alice", {PATH: CONTENT, "notes.md": b"regular\n"}, lfs=[PATH]
    )


def resolve_url(hub: EmulatorServer, sha: str, path: str = PATH) -> str:
    return f"{hub.url}/{MODEL}/resolve/{sha}/{path}"


def test_tree_and_paths_info_describe_the_lfs_object(
    emulated_hub: EmulatorServer, lfs_pr: tuple[int, str]
) -> None:
    _num, head = lfs_pr
    api = client(emulated_hub, "alice")
    files = {e.path: e for e in api.list_repo_tree(MODEL, revision=head, recursive=True)}
    entry = files[PATH]
    assert entry.lfs is not None
    assert entry.lfs.sha256 == SHA256
    assert entry.lfs.size == entry.size == len(CONTENT)
    pointer = emulated_hub.state.find_repo("model", MODEL).blobs[entry.blob_id]
    assert entry.blob_id == blob_oid(pointer)  # the tree's oid is the pointer blob's
    assert entry.lfs.pointer_size == len(pointer)
    assert files["notes.md"].lfs is None
    (info,) = api.get_paths_info(MODEL, [PATH], revision=head)
    assert info.lfs == entry.lfs
    siblings = {
        s.rfilename: s for s in api.model_info(MODEL, revision=head, files_metadata=True).siblings
    }
    assert siblings[PATH].lfs is not None
    assert siblings[PATH].lfs.sha256 == SHA256


def test_resolve_redirects_to_another_origin_with_the_linked_headers(
    emulated_hub: EmulatorServer, lfs_pr: tuple[int, str]
) -> None:
    _num, head = lfs_pr
    auth = {"Authorization": f"Bearer {TOKENS['alice']}"}
    for method in ("HEAD", "GET"):
        response = httpx2.request(method, resolve_url(emulated_hub, head), headers=auth)
        assert response.status_code == 302
        headers = response.headers
        assert headers["X-Repo-Commit"] == head
        assert headers["X-Linked-Etag"] == f'"{SHA256}"'
        assert headers["X-Linked-Size"] == str(len(CONTENT))
        assert not [name for name in headers if name.lower().startswith("x-xet")]
        location = urlsplit(headers["Location"])
        hub = urlsplit(emulated_hub.url)
        assert (location.hostname, location.port) != (hub.hostname, hub.port)
        assert f"{location.scheme}://{location.netloc}" == emulated_hub.cdn_url
    # The CDN serves the bytes to anyone holding the signed URL; a regular file is still 200.
    assert httpx2.get(response.headers["Location"]).content == CONTENT
    regular = httpx2.get(resolve_url(emulated_hub, head, "notes.md"), headers=auth)
    assert regular.status_code == 200
    assert regular.content == b"regular\n"


def test_hf_hub_download_follows_to_the_cdn_without_the_token(
    emulated_hub: EmulatorServer, lfs_pr: tuple[int, str], hub_env: Path
) -> None:
    _num, head = lfs_pr
    local = hf_hub_download(
        MODEL,
        PATH,
        revision=head,
        endpoint=emulated_hub.url,
        token=TOKENS["alice"],
        cache_dir=hub_env,
    )
    assert Path(local).read_bytes() == CONTENT
    seen = emulated_hub.cdn_requests()
    assert [(r.method, r.status) for r in seen] == [("GET", 200)]
    assert not seen[0].authorization
    assert seen[0].path.endswith(SHA256)
    # The same log, for another process, through the admin API.
    admin = httpx2.get(f"{emulated_hub.url}/_emulator/cdn").json()
    assert admin["endpoint"] == emulated_hub.cdn_url
    assert admin["requests"] == [seen[0].to_json()]


def test_cdn_urls_are_signed_and_scoped(
    emulated_hub: EmulatorServer, lfs_pr: tuple[int, str]
) -> None:
    _num, head = lfs_pr
    location = httpx2.get(
        resolve_url(emulated_hub, head),
        headers={"Authorization": f"Bearer {TOKENS['alice']}"},
    ).headers["Location"]
    assert httpx2.get(location.replace("Signature=", "Signature=0")).status_code == 403
    other = location.replace(SHA256, "0" * 64)
    assert httpx2.get(other).status_code == 403  # the signature covers the object too
    assert [r.status for r in emulated_hub.cdn_requests()] == [403, 403]


def test_private_lfs_files_need_access_before_any_redirect(emulated_hub: EmulatorServer) -> None:
    state = emulated_hub.state
    state.seed_repo("model", "alice/secret", {PATH: CONTENT}, private=True, lfs=[PATH])
    with pytest.raises(RepositoryNotFoundError):
        hf_hub_download("alice/secret", PATH, endpoint=emulated_hub.url, token=TOKENS["bob"])
    assert emulated_hub.cdn_requests() == []


def test_the_pr_diff_shows_the_pointer_not_the_content(
    emulated_hub: EmulatorServer, lfs_pr: tuple[int, str]
) -> None:
    num, _head = lfs_pr
    details = client(emulated_hub, "alice").get_discussion_details(MODEL, num)
    assert f"+oid sha256:{SHA256}" in details.diff
    assert f"+size {len(CONTENT)}" in details.diff
    assert "task_id" not in details.diff


def test_a_blob_that_looks_like_a_pointer_without_its_object_stays_regular(
    emulated_hub: EmulatorServer,
) -> None:
    """Only objects the repo holds are LFS; a committed pointer text alone is a plain file."""
    pointer = (
        f"version https://git-lfs.github.com/spec/v1\noid sha256:{'1' * 64}\nsize 5\n".encode()
    )
    assert parse_pointer(pointer) is not None
    _num, head = open_state_pr(emulated_hub, "alice", {PATH: pointer})
    (info,) = client(emulated_hub, "alice").get_paths_info(MODEL, [PATH], revision=head)
    assert info.lfs is None
    response = httpx2.get(resolve_url(emulated_hub, head))
    assert response.status_code == 200
    assert response.content == pointer
