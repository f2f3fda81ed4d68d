"""Repos, files, refs and errors, driven only through the public `huggingface_hub` API."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from huggingface_hub import hf_hub_download
from huggingface_hub.errors import (
    EntryNotFoundError,
    HfHubHTTPError,
    RepositoryNotFoundError,
    RevisionNotFoundError,
)

from evalbot_dev.emulator.git import blob_oid
from evalbot_dev.emulator.server import EmulatorServer
from tests.support.emulator import (
    BENCHMARKS,
    GATED_BENCHMARK,
    MODEL,
    ORG_MODEL,
    TOKENS,
    client,
    use_emulator_endpoint,
)

pytestmark = pytest.mark.integration
SHA = re.compile(r"[0-9a-f]{40}")


def open_pr(hub: EmulatorServer, user: str, path: str, content: bytes) -> tuple[int, str]:
    info = client(hub, user).upload_file(
        path_or_fileobj=content, path_in_repo=path, repo_id=MODEL, create_pr=True
    )
    assert info.pr_num is not None
    return info.pr_num, info.oid


def test_whoami_names_the_token_holder_and_orgs(emulated_hub: EmulatorServer) -> None:
    me = client(emulated_hub, "carol").whoami()
    assert me["name"] == "carol"
    assert me["type"] == "user"
    assert [org["name"] for org in me["orgs"]] == ["evals-org"]
    assert me["auth"]["accessToken"]["role"] == "write"
    bot = client(emulated_hub, "evalbot").whoami()
    assert bot["auth"]["accessToken"]["role"] == "fineGrained"


def test_unknown_token_is_401(emulated_hub: EmulatorServer) -> None:
    from huggingface_hub import HfApi

    with pytest.raises(HfHubHTTPError) as caught:
        HfApi(endpoint=emulated_hub.url, token="hf_nobody").whoami()
    assert caught.value.response.status_code == 401
    with pytest.raises(HfHubHTTPError) as caught:
        HfApi(endpoint=emulated_hub.url, token="hf_nobody").model_info(MODEL)
    assert caught.value.response.status_code == 401
    assert not isinstance(caught.value, RepositoryNotFoundError)


def test_create_repo_upload_and_read_back(emulated_hub: EmulatorServer, hub_env: Path) -> None:
    api = client(emulated_hub, "alice")
    url = api.create_repo("alice/fresh", private=True)
    assert url.repo_id == "alice/fresh"
    info = api.upload_file(
        path_or_fileobj=b"hello\n", path_in_repo="a/b.txt", repo_id="alice/fresh"
    )
    assert SHA.fullmatch(info.oid)
    model = api.model_info("alice/fresh")
    assert model.sha == info.oid
    assert model.private is True
    assert sorted(s.rfilename for s in model.siblings or []) == [".gitattributes", "a/b.txt"]
    path = hf_hub_download(
        "alice/fresh",
        "a/b.txt",
        endpoint=emulated_hub.url,
        token="hf_alice_write",
        cache_dir=hub_env,
    )
    assert Path(path).read_bytes() == b"hello\n"
    # Private: strangers and anonymous callers are told it does not exist.
    with pytest.raises(RepositoryNotFoundError):
        client(emulated_hub, "bob").model_info("alice/fresh")
    with pytest.raises(RepositoryNotFoundError):
        client(emulated_hub, None).model_info("alice/fresh")
    # Existing repo: 409, unless exist_ok.
    with pytest.raises(HfHubHTTPError) as caught:
        api.create_repo("alice/fresh")
    assert caught.value.response.status_code == 409
    assert api.create_repo("alice/fresh", exist_ok=True).repo_id == "alice/fresh"


def test_org_members_with_write_role_can_create_and_push(emulated_hub: EmulatorServer) -> None:
    carol = client(emulated_hub, "carol")
    carol.upload_file(path_or_fileobj=b"x", path_in_repo="x.txt", repo_id=ORG_MODEL)
    assert "x.txt" in carol.list_repo_files(ORG_MODEL)
    with pytest.raises(HfHubHTTPError) as caught:
        client(emulated_hub, "dave").upload_file(
            path_or_fileobj=b"x", path_in_repo="y.txt", repo_id=ORG_MODEL
        )
    assert caught.value.response.status_code == 403


def test_stranger_cannot_push_to_main_403(emulated_hub: EmulatorServer) -> None:
    with pytest.raises(HfHubHTTPError) as caught:
        client(emulated_hub, "bob").upload_file(
            path_or_fileobj=b"x", path_in_repo="x.txt", repo_id=MODEL
        )
    assert caught.value.response.status_code == 403
    assert "rights" in (caught.value.server_message or "")


def test_read_token_cannot_write(emulated_hub: EmulatorServer) -> None:
    with pytest.raises(HfHubHTTPError) as caught:
        client(emulated_hub, "alice-read").upload_file(
            path_or_fileobj=b"x", path_in_repo="x.txt", repo_id=MODEL
        )
    assert caught.value.response.status_code == 403


def test_missing_repo_revision_and_file_map_to_client_exceptions(
    emulated_hub: EmulatorServer, hub_env: Path
) -> None:
    api = client(emulated_hub, "alice")
    with pytest.raises(RepositoryNotFoundError):
        api.model_info("alice/nope")
    with pytest.raises(RepositoryNotFoundError):
        api.dataset_info(MODEL)  # right name, wrong type
    with pytest.raises(RevisionNotFoundError):
        api.model_info(MODEL, revision="refs/pr/99")
    with pytest.raises(RevisionNotFoundError):
        api.model_info(MODEL, revision="0" * 40)
    with pytest.raises(EntryNotFoundError):
        hf_hub_download(
            MODEL, "missing.yaml", endpoint=emulated_hub.url, token=False, cache_dir=hub_env
        )
    with pytest.raises(EntryNotFoundError):
        list(api.list_repo_tree(MODEL, path_in_repo="no-such-folder"))
    with pytest.raises(RevisionNotFoundError):
        hf_hub_download(
            MODEL,
            "README.md",
            revision="nope",
            endpoint=emulated_hub.url,
            token=False,
            cache_dir=hub_env,
        )


def test_download_at_pr_ref_and_at_sha(emulated_hub: EmulatorServer, hub_env: Path) -> None:
    content = b"- dataset: {id: emulator-samples/gpqa-mini, task_id: diamond}\n  value: 50\n"
    num, head = open_pr(emulated_hub, "bob", ".eval_results/gpqa.yaml", content)
    at_ref = hf_hub_download(
        MODEL,
        ".eval_results/gpqa.yaml",
        revision=f"refs/pr/{num}",
        endpoint=emulated_hub.url,
        token=False,
        cache_dir=hub_env,
    )
    assert Path(at_ref).read_bytes() == content
    assert head in at_ref  # the snapshot folder is the X-Repo-Commit sha
    at_sha = hf_hub_download(
        MODEL,
        ".eval_results/gpqa.yaml",
        revision=head,
        endpoint=emulated_hub.url,
        token=False,
        cache_dir=hub_env,
    )
    assert Path(at_sha).read_bytes() == content
    # main does not have it.
    with pytest.raises(EntryNotFoundError):
        hf_hub_download(
            MODEL,
            ".eval_results/gpqa.yaml",
            endpoint=emulated_hub.url,
            token=False,
            cache_dir=hub_env,
        )


def test_file_metadata_headers(emulated_hub: EmulatorServer) -> None:
    from huggingface_hub import get_hf_file_metadata, hf_hub_url

    url = hf_hub_url(BENCHMARKS[0], "eval.yaml", repo_type="dataset", endpoint=emulated_hub.url)
    meta = get_hf_file_metadata(url, token=False)
    content = (
        Path(__file__).parents[3]
        / "evalbot_dev/emulator/samples/benchmarks/emulator-samples/gpqa-mini/eval.yaml"
    ).read_bytes()
    assert meta.etag == blob_oid(content)
    assert meta.size == len(content)
    assert meta.commit_hash == client(emulated_hub, None).dataset_info(BENCHMARKS[0]).sha


def test_info_at_revision_tree_refs_commits_paths(emulated_hub: EmulatorServer) -> None:
    api = client(emulated_hub, "alice")
    main_sha = api.model_info(MODEL).sha
    num, head = open_pr(emulated_hub, "bob", ".eval_results/new.yaml", b"- value: 1\n")
    assert api.model_info(MODEL, revision=f"refs/pr/{num}").sha == head
    assert api.model_info(MODEL, revision=head).sha == head
    assert api.model_info(MODEL, revision=head[:7]).sha == head
    assert api.model_info(MODEL, revision="main").sha == main_sha

    dataset = api.dataset_info(BENCHMARKS[1])
    assert "benchmark:official" in (dataset.tags or [])
    assert api.dataset_info(BENCHMARKS[1], revision=dataset.sha).sha == dataset.sha

    entries = list(
        api.list_repo_tree(MODEL, path_in_repo=".eval_results", revision=f"refs/pr/{num}")
    )
    assert sorted(e.path for e in entries) == [
        ".eval_results/gpqa-mini.yaml",
        ".eval_results/new.yaml",
    ]
    root = {e.path: type(e).__name__ for e in api.list_repo_tree(MODEL)}
    assert root == {
        ".eval_results": "RepoFolder",
        ".gitattributes": "RepoFile",
        "README.md": "RepoFile",
    }
    expanded = list(
        api.list_repo_tree(MODEL, path_in_repo=".eval_results", revision=head, expand=True)
    )
    new_entry = next(e for e in expanded if e.path.endswith("new.yaml"))
    assert new_entry.last_commit is not None
    assert new_entry.last_commit.oid == head

    refs = api.list_repo_refs(MODEL, include_pull_requests=True)
    assert [(b.name, b.target_commit) for b in refs.branches] == [("main", main_sha)]
    assert [(p.ref, p.target_commit) for p in refs.pull_requests or []] == [
        (f"refs/pr/{num}", head)
    ]
    assert api.list_repo_refs(MODEL).pull_requests is None

    commits = api.list_repo_commits(MODEL, revision=f"refs/pr/{num}")
    assert [c.commit_id for c in commits[:2]] == [head, main_sha]
    assert commits[0].authors == ["bob"]

    infos = api.get_paths_info(
        MODEL, [".eval_results/new.yaml", "nope", ".eval_results"], revision=head
    )
    assert [(type(i).__name__, i.path) for i in infos] == [
        ("RepoFile", ".eval_results/new.yaml"),
        ("RepoFolder", ".eval_results"),
    ]


def test_list_datasets_filters_benchmarks(emulated_hub: EmulatorServer) -> None:
    found = sorted(d.id for d in client(emulated_hub, None).list_datasets(benchmark=True))
    assert found == sorted([*BENCHMARKS, GATED_BENCHMARK])


def test_gated_repo_files_need_access(emulated_hub: EmulatorServer, hub_env: Path) -> None:
    from huggingface_hub.errors import GatedRepoError

    info = client(emulated_hub, "bob").dataset_info(GATED_BENCHMARK)
    assert info.gated == "auto"
    for token in (TOKENS["bob"], False):
        with pytest.raises(GatedRepoError):
            hf_hub_download(
                GATED_BENCHMARK,
                "eval.yaml",
                repo_type="dataset",
                endpoint=emulated_hub.url,
                token=token,
                cache_dir=hub_env,
            )
    path = hf_hub_download(
        GATED_BENCHMARK,
        "eval.yaml",
        repo_type="dataset",
        endpoint=emulated_hub.url,
        token=TOKENS["evalbot"],
        cache_dir=hub_env,
    )
    assert Path(path).read_bytes().startswith(b"name: Gated")


def test_delete_files_and_folders(emulated_hub: EmulatorServer) -> None:
    api = client(emulated_hub, "alice")
    api.delete_folder(".eval_results", repo_id=MODEL)
    assert ".eval_results/gpqa-mini.yaml" not in api.list_repo_files(MODEL)
    with pytest.raises(EntryNotFoundError):
        api.delete_file("nope.txt", repo_id=MODEL)


def test_default_endpoint_helper_and_assertion_helpers(
    emulated_hub: EmulatorServer, hub_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from huggingface_hub import HfApi

    use_emulator_endpoint(monkeypatch, emulated_hub)
    api = HfApi(token="hf_bob_write")  # no endpoint: the production way
    assert api.whoami()["name"] == "bob"
    num = api.create_discussion(MODEL, title="t", description="first").num
    api.comment_discussion(MODEL, num, "second")
    path = hf_hub_download(MODEL, "README.md", token=False, cache_dir=hub_env)
    assert Path(path).read_bytes().startswith(b"---")
    assert [(c.author, c.content, c.hidden) for c in emulated_hub.comments(MODEL, num)] == [
        ("bob", "first", False),
        ("bob", "second", False),
    ]
    assert emulated_hub.counters()["discussions.comment"] == 1
    assert emulated_hub.deliveries() == []  # no webhook registered


def test_branches_and_tags(emulated_hub: EmulatorServer) -> None:
    api = client(emulated_hub, "alice")
    main = api.model_info(MODEL).sha
    api.create_tag(MODEL, tag="v1.0")
    api.create_branch(MODEL, branch="dev")
    api.upload_file(path_or_fileobj=b"dev", path_in_repo="dev.txt", repo_id=MODEL, revision="dev")
    refs = api.list_repo_refs(MODEL)
    assert [(t.name, t.target_commit) for t in refs.tags] == [("v1.0", main)]
    assert sorted(b.name for b in refs.branches) == ["dev", "main"]
    assert api.model_info(MODEL, revision="v1.0").sha == main
    assert api.model_info(MODEL, revision="refs/heads/dev").sha != main
    with pytest.raises(HfHubHTTPError) as caught:
        api.create_tag(MODEL, tag="v1.0")
    assert caught.value.response.status_code == 409
    api.create_tag(MODEL, tag="v1.0", exist_ok=True)
    with pytest.raises(HfHubHTTPError) as caught:
        client(emulated_hub, "bob").create_branch(MODEL, branch="evil")
    assert caught.value.response.status_code == 403


def test_readme_uploads_pass_the_metadata_check(emulated_hub: EmulatorServer) -> None:
    """The real client validates README.md metadata (`/api/validate-yaml`) before any upload."""
    api = client(emulated_hub, "alice")
    card = "---\nlicense: apache-2.0\ntags: [eval]\n---\n# model\n"
    api.upload_file(path_or_fileobj=card.encode(), path_in_repo="README.md", repo_id=MODEL)
    assert Path(api.hf_hub_download(MODEL, "README.md")).read_text() == card
    with pytest.raises(ValueError, match="Invalid metadata"):
        api.upload_file(
            path_or_fileobj=b"---\nlicense: [unclosed\n---\n",
            path_in_repo="README.md",
            repo_id=MODEL,
        )
