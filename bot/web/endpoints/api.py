"""The read-only JSON API: what the pages show, for scripts, public repos only, with `ETag`s
(docs/web.md, "JSON API")."""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable
from dataclasses import asdict
from typing import Any

import redis
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from bot.hub.errors import HubError, HubPermanentError
from bot.store.history import PrHistory, find_repo, read_benchmark, read_pr, read_repo_prs
from bot.store.verdicts import Verdict
from bot.validation.model import is_repo_id
from bot.web.lookup import DATASETS, is_history_repo
from bot.web.site import Site
from bot.web.standing import Standing, standing

log = logging.getLogger("evalbot.web")

API_MAX_AGE_S = 60
PRS_LISTED = 50
RESULTS_LISTED = 200


def routes(site: Site) -> list[Route]:
    context = site.context

    def visible(repo_id: str) -> str | None:
        return visible_repo(site, repo_id)

    def prs(request: Request) -> Response:
        repo_id = repo_of(request)
        try:
            shown = visible(repo_id)
            if shown is None:
                return _json_error(404, "no such model repo in the history")
            listed = read_repo_prs(site.redis, shown, PRS_LISTED)
        except (redis.RedisError, HubError) as problem:
            return _unavailable(problem)
        body = {
            "repo": shown,
            "prs": [_pr_json(shown, pr, context.hub_url, full=False) for pr in listed],
        }
        return _cached_json(request, body)

    def one_pr(request: Request) -> Response:
        repo_id, num = repo_of(request), int(request.path_params["num"])
        try:
            shown = visible(repo_id)
            pr = read_pr(site.redis, shown, num) if shown else None
        except (redis.RedisError, HubError) as problem:
            return _unavailable(problem)
        if shown is None or pr is None or not pr.verdicts:
            return _json_error(404, "no such PR in the history")
        return _cached_json(request, _pr_json(shown, pr, context.hub_url))

    def benchmark_results(request: Request) -> Response:
        benchmark = repo_of(request)
        if not is_repo_id(benchmark):
            return _json_error(400, "a benchmark id is owner/name")
        try:
            found = read_benchmark(site.redis, benchmark, RESULTS_LISTED)
            public = set(site.public_among(sorted({r.repo_id for r in found})))
            results = [r for r in found if r.repo_id in public]
        except (redis.RedisError, HubError) as problem:
            return _unavailable(problem)
        body = {"benchmark": benchmark, "results": [asdict(r) for r in results]}
        return _cached_json(request, body)

    def collection_standing(request: Request) -> Response:
        stored = context.collections.get(request.path_params["cid"])
        model = (request.query_params.get("model") or "").strip()[:200]
        if stored is None:
            return _json_error(404, "no such collection")
        if not is_repo_id(model) or context.results_reader is None:
            return _json_error(400, "give the model repo as ?model=owner/name")
        if not site.slots.acquire(blocking=False):
            return _json_error(503, "other checks are running; retry shortly")
        try:
            if context.results_reader.repo_visibility(model) != "public":
                return _json_error(404, "no such model repo")
            shown = standing(
                stored,
                model,
                context.results_reader,
                context.benchmarks.source(context.playground_max_benchmarks),
                context.policy,
            )
        except HubError as problem:
            if isinstance(problem, HubPermanentError) and problem.not_found:
                return _json_error(404, "no such model repo")
            return _unavailable(problem)
        finally:
            site.slots.release()
        return _cached_json(request, _standing_json(stored.id, model, shown))

    return [
        Route("/api/v1/repos/{owner}/{name}/prs", prs, methods=["GET"]),
        Route("/api/v1/repos/{owner}/{name}/prs/{num:int}", one_pr, methods=["GET"]),
        Route("/api/v1/repos/datasets/{owner}/{name}/prs", for_datasets(prs), methods=["GET"]),
        Route(
            "/api/v1/repos/datasets/{owner}/{name}/prs/{num:int}",
            for_datasets(one_pr),
            methods=["GET"],
        ),
        Route("/api/v1/benchmarks/{owner}/{name}/results", benchmark_results, methods=["GET"]),
        Route("/api/v1/collections/{cid}/standing", collection_standing, methods=["GET"]),
    ]


def visible_repo(site: Site, repo_id: str) -> str | None:
    """The recorded spelling of a public repo, or None (private, gated, never checked).
    Raises `redis.RedisError`."""
    if not is_history_repo(repo_id) or not site.public(repo_id):
        return None
    return find_repo(site.redis, repo_id) or repo_id


def repo_of(request: Request) -> str:
    """The repo a path names: `owner/name`, or `datasets/owner/name` on a datastore's route
    (`for_datasets`)."""
    prefix = DATASETS if request.scope.get(DATASET_ROUTE) else ""
    return f"{prefix}{request.path_params['owner']}/{request.path_params['name']}"


#: Set in the request's scope by `for_datasets`: the route names a datastore.
DATASET_ROUTE = "evalbot.datasets"


def for_datasets(handler: Callable[[Request], Response]) -> Callable[[Request], Response]:
    """`handler` on the route of the same page for a datastore (`/.../datasets/owner/name`):
    the history keeps a datastore's PRs under `datasets/<repo>`, its path on the Hub."""

    def datasets(request: Request) -> Response:
        request.scope[DATASET_ROUTE] = True
        return handler(request)

    return datasets


def _pr_json(repo_id: str, pr: PrHistory, hub_url: str, *, full: bool = True) -> dict[str, Any]:
    """A PR and its verdicts: each push's verdict in full (problems, tokens, results) for
    one PR; for a list, the newest verdict's counts and first problem code, and the number of
    pushes checked (`/prs/<num>` has them all)."""
    newest = pr.verdicts[0] if pr.verdicts else None
    shown: dict[str, Any] = {
        "num": pr.num,
        "url": f"{hub_url}/{repo_id}/discussions/{pr.num}",
        "title": newest.title if newest else "",
        "author": newest.author if newest else "",
        "state": newest.state if newest else "",
        "pushes": len(pr.verdicts),
    }
    if full:
        shown["verdicts"] = [_verdict_json(v) for v in pr.verdicts]
    else:
        shown["newest"] = _summary_json(newest) if newest else None
    return shown


def _verdict_json(verdict: Verdict) -> dict[str, Any]:
    return {**asdict(verdict), "ok": verdict.ok}


def _summary_json(verdict: Verdict) -> dict[str, Any]:
    return {
        "head": verdict.head,
        "at": verdict.at,
        "outcome": verdict.outcome,
        "state": verdict.state,
        "ok": verdict.ok,
        "results": verdict.results,
        "verified": verdict.verified,
        "community": verdict.community,
        "invalid": verdict.invalid,
        "errors": verdict.errors,
        "warnings": verdict.warnings,
        "problems_total": verdict.problems_total,
        "first_problem": verdict.problems[0].code if verdict.problems else None,
    }


def _standing_json(cid: str, model: str, shown: Standing) -> dict[str, Any]:
    result = shown.result
    return {
        "collection": cid,
        "model": model,
        "valid": result is not None,
        "problems": [
            {"code": d.code, "line": d.line, "message": d.message, "fix": d.hint}
            for d in shown.diagnostics
        ],
        "passed": result.passed if result is not None else False,
        "score": result.score if result is not None else None,
        "reasons": list(shown.reasons),
        "benchmarks": [
            {
                "label": bar.label,
                "status": bar.status,
                "score": bar.score,
                "threshold": bar.threshold,
            }
            for bar in shown.bars
        ],
    }


def etagged(request: Request, content: bytes) -> tuple[bool, str]:
    """The content's ETag, and whether the client already holds that version."""
    etag = '"' + hashlib.sha256(content).hexdigest()[:20] + '"'
    return request.headers.get("if-none-match") == etag, etag


def _cached_json(request: Request, body: dict[str, Any]) -> Response:
    response = JSONResponse(body)
    headers = {
        "Cache-Control": f"public, max-age={API_MAX_AGE_S}",
        "Access-Control-Allow-Origin": "*",
        "X-Content-Type-Options": "nosniff",
    }
    fresh, etag = etagged(request, bytes(response.body))
    headers["ETag"] = etag
    if fresh:
        return Response(status_code=304, headers=headers)
    response.headers.update(headers)
    return response


def _json_error(status: int, message: str) -> Response:
    return JSONResponse(
        {"error": message},
        status_code=status,
        headers={"Cache-Control": "no-store", "X-Content-Type-Options": "nosniff"},
    )


def _unavailable(problem: Exception) -> Response:
    log.warning("api unavailable: %s", type(problem).__name__)
    return _json_error(503, "the bot's store or the Hub does not answer; retry")
