"""`/history`: the repos checked lately, a repo's PRs push by push, and one PR's details
(docs/web.md, "PR history")."""

from __future__ import annotations

import redis
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from bot.store.history import find_repo, read_pr, read_repo_prs, recent_repos
from bot.web.endpoints.api import for_datasets, repo_of
from bot.web.lookup import parse_wanted
from bot.web.site import Site

HISTORY_PRS_SHOWN = 50
REPOS_SHOWN = 100
NOT_A_REPO = "Type a model repo as owner/name, or paste its Hub address."


def routes(site: Site) -> list[Route]:
    context = site.context
    unavailable = ("Unavailable", "The bot's store does not answer.")

    def shown_spelling(typed: str) -> str | None:
        """The recorded spelling of the repo `typed` names, only when the pages may show that
        repo: a redirect to the spelling of a private or gated repo would tell a stranger it
        exists and how it is written. Raises `redis.RedisError`."""
        repo_id = find_repo(site.redis, typed)
        return repo_id if repo_id is not None and site.public(repo_id) else None

    def index(request: Request) -> Response:
        typed = (request.query_params.get("repo") or "").strip()[:300]
        if typed:
            wanted = parse_wanted(typed)
            if wanted is None:
                return site.error(request, 400, "Not a model repo", NOT_A_REPO)
            try:
                repo_id = shown_spelling(wanted.repo_id) or wanted.repo_id
            except redis.RedisError:
                return site.error(request, 503, *unavailable)
            if wanted.pr_num is not None:
                return RedirectResponse(f"/pr/{repo_id}/{wanted.pr_num}", status_code=303)
            return RedirectResponse(f"/history/{repo_id}", status_code=303)
        try:
            repos = site.public_among(recent_repos(site.redis, REPOS_SHOWN))
        except redis.RedisError:
            return site.error(request, 503, *unavailable)
        return site.page("history.html", request, repo=None, repos=repos, prs=[])

    def repo_page(request: Request) -> Response:
        typed = repo_of(request)
        wanted = parse_wanted(typed)
        if wanted is None:
            return site.error(request, 400, "Not a model repo", NOT_A_REPO)
        try:
            repo_id = shown_spelling(wanted.repo_id)
            if repo_id is not None and repo_id != wanted.repo_id:
                return RedirectResponse(f"/history/{repo_id}", status_code=308)
            # a repo not recorded as public on the Hub reads as one with no history
            shown = site.public(wanted.repo_id)
            prs = read_repo_prs(site.redis, wanted.repo_id, HISTORY_PRS_SHOWN) if shown else []
        except redis.RedisError:
            return site.error(request, 503, *unavailable)
        return site.page(
            "history.html",
            request,
            repo=wanted.repo_id,
            repos=[],
            prs=prs,
            pr_url=f"{context.hub_url}/{wanted.repo_id}/discussions/",
            commit_url=f"{context.hub_url}/{wanted.repo_id}/commit/",
        )

    def pr_page(request: Request) -> Response:
        wanted = parse_wanted(repo_of(request))
        if wanted is None:
            return site.error(request, 400, "Not a model repo", NOT_A_REPO)
        num = int(request.path_params["num"])
        try:
            repo_id = shown_spelling(wanted.repo_id)
            if repo_id is not None and repo_id != wanted.repo_id:
                return RedirectResponse(f"/pr/{repo_id}/{num}", status_code=308)
            shown = site.public(wanted.repo_id)
            pr = read_pr(site.redis, wanted.repo_id, num)
        except redis.RedisError:
            return site.error(request, 503, *unavailable)
        if not shown or not pr.verdicts:
            return site.error(
                request,
                404,
                "No such PR in the history",
                f"The bot has recorded no verdict for {wanted.repo_id} PR #{num} "
                "(verdicts are kept 90 days).",
            )
        return site.page(
            "pr.html",
            request,
            repo=wanted.repo_id,
            pr=pr,
            pr_url=f"{context.hub_url}/{wanted.repo_id}/discussions/{num}",
            commit_url=f"{context.hub_url}/{wanted.repo_id}/commit/",
            file_url=f"{context.hub_url}/{wanted.repo_id}/blob/",
        )

    return [
        Route("/history", index, methods=["GET"]),
        Route("/history/{owner}/{name}", repo_page, methods=["GET"]),
        Route("/pr/{owner}/{name}/{num:int}", pr_page, methods=["GET"]),
        Route("/history/datasets/{owner}/{name}", for_datasets(repo_page), methods=["GET"]),
        Route("/pr/datasets/{owner}/{name}/{num:int}", for_datasets(pr_page), methods=["GET"]),
    ]
