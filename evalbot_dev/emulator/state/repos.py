"""Repos, their git history and LFS objects: create, seed, resolve revisions, read files."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import Literal

from evalbot_dev.emulator import access, hub_texts, hubtime
from evalbot_dev.emulator.errors import ENTRY_NOT_FOUND, REVISION_NOT_FOUND, HubError
from evalbot_dev.emulator.git import Commit, blob_oid, make_commit
from evalbot_dev.emulator.lfs import LfsObject, pointer_for, stored_object
from evalbot_dev.emulator.model import (
    WRITE,
    Repo,
    RepoType,
    Token,
)
from evalbot_dev.emulator.state.base import (
    _GITATTRIBUTES,
    _PR_REF,
    _SHA,
    _SHORT_SHA,
    FileChange,
    Trigger,
)
from evalbot_dev.emulator.state.webhooks import Webhooks


class Repos(Webhooks):
    """Repos, their git history and LFS objects: create, seed, resolve revisions, read files."""

    def repo_key(self, repo_type: str, repo_id: str) -> tuple[str, str]:
        return (repo_type, repo_id.lower())

    def find_repo(self, repo_type: str, repo_id: str) -> Repo:
        """A repo regardless of who asks (for assertions and seeding); KeyError if absent."""
        return self.repos[self.repo_key(repo_type, repo_id)]

    def get_repo(self, token: Token | None, repo_type: str, repo_id: str) -> Repo:
        repo = self.repos.get(self.repo_key(repo_type, repo_id))
        if repo is None:
            raise access.not_found(token)
        access.check_readable(self.members, token, repo)
        return repo

    def create_repo(
        self,
        token: Token | None,
        repo_type: RepoType,
        namespace: str | None,
        name: str,
        *,
        private: bool = False,
    ) -> Repo:
        holder = access.require_permission(token, WRITE)
        owner = namespace or holder.user
        with self.lock:
            if not access.can_write_namespace(self.members, holder.user, owner):
                raise HubError(403, hub_texts.FORBIDDEN_NAMESPACE.format(namespace=owner))
            if self.repo_key(repo_type, f"{owner}/{name}") in self.repos:
                raise HubError(409, hub_texts.REPO_EXISTS.format(repo_type=repo_type))
            repo = self._new_repo(repo_type, owner, name, private=private, author=holder.user)
            self._emit(Trigger("repo", "create", repo))
            return repo

    def seed_repo(
        self,
        repo_type: RepoType,
        repo_id: str,
        files: Mapping[str, bytes],
        *,
        private: bool = False,
        tags: Iterable[str] = (),
        gated: Literal[False, "auto", "manual"] = False,
        granted: Iterable[str] = (),
        author: str | None = None,
        message: str = "Initial commit",
        sha: str | None = None,
        lfs: Iterable[str] = (),
    ) -> Repo:
        """A repo whose second commit (after the Hub's `.gitattributes` one) holds `files`.

        `sha` pins that commit's id: a copy of a real repo can then be read at the revision
        that real files name (an entry's `dataset.revision`), which no content hash here
        would produce. The paths in `lfs` are stored as LFS objects.
        """
        if sha is not None and not _SHA.fullmatch(sha):
            raise ValueError(f"a pinned commit must be a 40-hex SHA, not {sha!r}")
        namespace, name = repo_id.split("/", 1)
        lfs_paths = set(lfs)
        if lfs_paths - set(files):
            raise ValueError(f"LFS paths not among the files: {sorted(lfs_paths - set(files))}")
        with self.lock:
            self.ensure_namespace(namespace)
            repo = self._new_repo(
                repo_type, namespace, name, private=private, author=author or namespace
            )
            repo.tags.extend(tags)
            repo.gated = gated
            repo.granted.update(granted)
            if files:
                changes = [
                    FileChange(path, content, lfs=path in lfs_paths)
                    for path, content in sorted(files.items())
                ]
                self._apply_commit(
                    repo,
                    "main",
                    changes,
                    author=author or namespace,
                    summary=message,
                    description="",
                )
            if sha is not None:
                head = repo.commits.pop(repo.branches["main"])
                repo.commits[sha] = replace(head, sha=sha)
                repo.branches["main"] = sha
            return repo

    def _new_repo(
        self, repo_type: RepoType, namespace: str, name: str, *, private: bool, author: str
    ) -> Repo:
        moment = hubtime.now()
        repo = Repo(self.ids.new(), repo_type, namespace, name, private, moment, moment)
        initial = _GITATTRIBUTES
        oid = blob_oid(initial)
        repo.blobs[oid] = initial
        commit = make_commit(
            files={".gitattributes": oid},
            parents=(),
            author=author,
            date=moment,
            title="initial commit",
            message="",
        )
        repo.commits[commit.sha] = commit
        repo.branches["main"] = commit.sha
        self.repos[self.repo_key(repo_type, repo.full_name)] = repo
        return repo

    def resolve(self, repo: Repo, revision: str) -> Commit:
        """The commit a revision names: branch, tag, `refs/...`, `refs/pr/N`, or a (short) SHA."""
        with self.lock:
            sha = self._resolve_sha(repo, revision)
            if sha is None:
                raise HubError(
                    404, hub_texts.REVISION_NOT_FOUND.format(revision=revision), REVISION_NOT_FOUND
                )
            return repo.commits[sha]

    def _resolve_sha(self, repo: Repo, revision: str) -> str | None:
        if revision.startswith("refs/heads/"):
            return repo.branches.get(revision.removeprefix("refs/heads/"))
        if revision.startswith("refs/tags/"):
            return repo.tag_refs.get(revision.removeprefix("refs/tags/"))
        if match := _PR_REF.fullmatch(revision):
            return repo.pr_refs.get(int(match[1]))
        if revision in repo.branches:
            return repo.branches[revision]
        if revision in repo.tag_refs:
            return repo.tag_refs[revision]
        if _SHA.fullmatch(revision):
            return revision if revision in repo.commits else None
        if _SHORT_SHA.fullmatch(revision):
            found = [sha for sha in repo.commits if sha.startswith(revision)]
            return found[0] if len(found) == 1 else None
        return None

    def read_file(self, repo: Repo, commit: Commit, path: str) -> tuple[str, bytes]:
        """The git blob at `path` (for an LFS file: its pointer) and its oid."""
        oid = commit.files.get(path)
        if oid is None:
            raise HubError(404, hub_texts.ENTRY_NOT_FOUND, ENTRY_NOT_FOUND)
        return oid, repo.blobs[oid]

    def lfs_object(self, repo: Repo, blob_oid: str) -> LfsObject | None:
        """The LFS object a blob points at; None for a regular blob (or an unknown object)."""
        with self.lock:
            return stored_object(repo, blob_oid)

    def lfs_content(self, repo: Repo, sha256: str) -> bytes | None:
        with self.lock:
            return repo.lfs_objects.get(sha256)

    def _check_parent(self, parent: str | None, head: str, revision: str) -> None:
        if parent is not None and not head.startswith(parent):
            raise HubError(
                412,
                hub_texts.PARENT_COMMIT_MISMATCH.format(
                    parent=parent, revision=revision, head=head
                ),
            )

    def _apply_commit(
        self,
        repo: Repo,
        branch: str | None,
        changes: list[FileChange],
        *,
        author: str,
        summary: str,
        description: str,
        start: str | None = None,
    ) -> Commit:
        parent_sha = start if start is not None else repo.branches[branch or "main"]
        files = dict(repo.commits[parent_sha].files)
        for change in changes:
            if change.content is None:
                prefix = change.path.rstrip("/") + "/"
                doomed = [
                    p for p in files if p == change.path or (change.folder and p.startswith(prefix))
                ]
                if not doomed:
                    raise HubError(
                        404, hub_texts.DELETE_MISSING_FILE.format(path=change.path), ENTRY_NOT_FOUND
                    )
                for path in doomed:
                    del files[path]
            else:
                blob = change.content
                if change.lfs:
                    stored, blob = pointer_for(change.content)
                    repo.lfs_objects.setdefault(stored.oid, change.content)
                oid = blob_oid(blob)
                repo.blobs.setdefault(oid, blob)
                files[change.path] = oid
        commit = make_commit(
            files=files,
            parents=(parent_sha,),
            author=author,
            date=hubtime.now(),
            title=summary,
            message=description,
        )
        repo.commits[commit.sha] = commit
        if branch is not None:
            repo.branches[branch] = commit.sha
        repo.last_modified = commit.date
        return commit
