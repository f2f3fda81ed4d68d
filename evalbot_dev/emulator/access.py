"""Who may see and change what: the Hub's namespace rules, reduced to what the bot exercises.

Read: public repos for everyone (anonymous included); private ones for the namespace user and
members of the namespace org. Write: the namespace user, and org members with a write or admin
role. A token can only use what its role or fine-grained permissions allow.
"""

from __future__ import annotations

from collections.abc import Mapping

from evalbot_dev.emulator import hub_texts
from evalbot_dev.emulator.errors import GATED_REPO, REPO_NOT_FOUND, HubError
from evalbot_dev.emulator.model import WRITE_ROLES, Repo, Token

Members = Mapping[str, Mapping[str, str]]
"""org name -> {user name -> role}."""


def is_member(members: Members, org: str, user: str) -> bool:
    return user in members.get(org, {})


def can_write_namespace(members: Members, user: str, namespace: str) -> bool:
    return user == namespace or members.get(namespace, {}).get(user) in WRITE_ROLES


def can_read(members: Members, token: Token | None, repo: Repo) -> bool:
    if not repo.private:
        return True
    if token is None:
        return False
    return token.user == repo.namespace or is_member(members, repo.namespace, token.user)


def check_readable(members: Members, token: Token | None, repo: Repo) -> None:
    """Raise the Hub's "not found" for a repo the caller may not see: private repos stay hidden."""
    if not can_read(members, token, repo):
        raise not_found(token)


def check_file_access(members: Members, token: Token | None, repo: Repo) -> None:
    """Files of a gated repo need granted access: the Hub answers `GatedRepo` otherwise."""
    if not repo.gated:
        return
    if token is not None and (
        token.user in repo.granted or can_write_namespace(members, token.user, repo.namespace)
    ):
        return
    raise HubError(
        401 if token is None else 403,
        hub_texts.GATED_REPO.format(kind=repo.type, repo=repo.full_name),
        GATED_REPO,
    )


def not_found(token: Token | None) -> HubError:
    # The Hub answers 401 to anonymous callers and 404 to authenticated ones, both RepoNotFound.
    return HubError(401 if token is None else 404, hub_texts.REPO_NOT_FOUND, REPO_NOT_FOUND)


def require_token(token: Token | None) -> Token:
    if token is None:
        raise HubError(401, hub_texts.AUTH_REQUIRED)
    return token


def require_permission(token: Token | None, permission: str) -> Token:
    holder = require_token(token)
    if permission not in holder.permissions:
        raise HubError(403, hub_texts.FORBIDDEN_TOKEN_SCOPE.format(permission=permission))
    return holder


def require_repo_write(members: Members, token: Token | None, repo: Repo, permission: str) -> Token:
    holder = require_permission(token, permission)
    if not can_write_namespace(members, holder.user, repo.namespace):
        raise HubError(403, hub_texts.FORBIDDEN_WRITE.format(repo=repo.full_name))
    return holder
