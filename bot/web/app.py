"""The web app: landing, validation playground, PR history, operator status.

Every page is rendered on the server by Jinja2 with autoescaping on, works without JavaScript
(the Content-Security-Policy forbids scripts outright, so even a markup slip stays inert) and
reads its figures from Redis with the workers' own keys. Handlers are plain functions: Starlette
runs them in its thread pool, so a slow Redis or Hub call never blocks the event loop.

POSTs (the playground, the operator's sign-in and replay) from other sites are refused, and
operators are known by a signed cookie (`bot.web.guards`).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import logging
import threading
import time
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit

import redis
from jinja2 import Environment, FileSystemLoader, select_autoescape
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import UploadFile
from starlette.requests import Request
from starlette.responses import HTMLResponse, PlainTextResponse, RedirectResponse, Response
from starlette.routing import Route

from bot.cli.collections_store import StoredCollection
from bot.hub.errors import HubError, HubPermanentError
from bot.hub.standing import ResultsReader
from bot.report.badges import Badge
from bot.report.texts import BADGE_LABELS, BADGE_MEANINGS
from bot.spec.formats import is_repo_id
from bot.spec.limits import DEFAULT_LIMITS
from bot.spec.model import Benchmark
from bot.spec.policy import DEFAULT_POLICY, Policy
from bot.tokens.issuers import IssuerRegistry
from bot.web.benchmarks import CachedHubBenchmarks
from bot.web.charts import build_charts
from bot.web.guards import OperatorGate, cross_site
from bot.web.hubsignin import HubSignIn
from bot.web.live import read_samples, read_snapshot, record_sample, workers_state
from bot.web.playground import PlaygroundInput, run_playground
from bot.web.signin import signin_routes
from bot.web.standing import standing
from workers.deadletters import parked_events, replay
from workers.history import (
    HISTORY_REPOS,
    parse_pr_history,
    pr_history_key,
    public_repos,
    repo_history_key,
)

log = logging.getLogger("evalbot.web")

WEB_ROOT = Path(str(resources.files("bot").joinpath("web")))
#: A playground POST larger than this is refused before it is parsed (413): the file cap and
#: room for the form's other fields.
MAX_FORM_BYTES = DEFAULT_LIMITS.max_file_bytes + 64 * 1024
HISTORY_PRS_SHOWN = 50
REPLAY_NOTICES = {
    "replayed": "Queued again: a worker will run it shortly.",
    "gone": "Already gone: someone replayed it meanwhile.",
    "not-an-event": "Kept: the record holds no event the workers accept.",
}
PARKED_SHOWN = 20
DOCS = (
    ("validate.md", "Check files before pushing: evalbot validate"),
    ("diagnostics.md", "Every diagnostic code, with its fix"),
    ("verification.md", "Verify tokens and their reason codes"),
    ("comment.md", "The PR comment, line by line"),
    ("web.md", "These pages"),
    ("operating.md", "Running the bot"),
)


@dataclass(frozen=True, slots=True)
class WebContext:
    """What the pages need, built once per process (`bot.cli.web`)."""

    redis: redis.Redis
    queue: str
    hub_url: str
    bot_name: str
    #: Who is an operator (`bot.web.guards`), and "Sign in with Hugging Face" when set up.
    operators: OperatorGate
    benchmarks: CachedHubBenchmarks
    registry: IssuerRegistry
    policy: Policy = DEFAULT_POLICY
    sample_interval_s: float = 60.0
    playground_slots: int = 2
    playground_max_benchmarks: int = 20
    docs_url: str | None = None  # where docs/*.md are published; else their paths are shown
    clock: Callable[[], float] = time.time
    #: The collections a model's standing can be shown in (system, and the bot config's
    #: `collections_dir`), and the Hub reader of a model's results for them.
    collections: Mapping[str, StoredCollection] = field(default_factory=dict)
    results_reader: ResultsReader | None = None
    signin: HubSignIn | None = None
    #: The pages' public address is https: operator cookies are `Secure` whatever a request
    #: reads (`WebConfig.public_https`).
    public_https: bool = False


def create_web_app(context: WebContext) -> Starlette:
    templates = Environment(
        loader=FileSystemLoader(str(WEB_ROOT / "templates")),
        autoescape=select_autoescape(default=True, default_for_string=True),
        trim_blocks=True,
        lstrip_blocks=True,
    )
    stylesheet = (WEB_ROOT / "static" / "style.css").read_bytes()
    style_etag = '"' + hashlib.sha256(stylesheet).hexdigest()[:16] + '"'
    slots = threading.BoundedSemaphore(context.playground_slots)
    hub_origin = _origin(context.hub_url)
    security_headers = {
        "Content-Security-Policy": (
            "default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'self'; "
            f"base-uri 'none'; frame-ancestors 'self' {hub_origin}"
        ),
        "X-Content-Type-Options": "nosniff",
        "Referrer-Policy": "same-origin",
    }

    def page(name: str, request: Request, status: int = 200, **values: Any) -> HTMLResponse:
        html = templates.get_template(name).render(
            bot_name=context.bot_name,
            path=request.url.path,
            **values,
        )
        return HTMLResponse(html, status_code=status, headers=security_headers)

    def error(request: Request, status: int, title: str, detail: str) -> HTMLResponse:
        return page("error.html", request, status, title=title, detail=detail)

    def live() -> dict[str, Any]:
        """The one-line live state (and what the status page charts), or `None` values when
        Redis does not answer: a page never fails because Redis is down."""
        try:
            snapshot = read_snapshot(context.redis, context.queue)
            record_sample(context.redis, snapshot, interval_s=context.sample_interval_s)
            samples = read_samples(context.redis)
        except redis.RedisError as problem:
            log.warning("live state unavailable: %s", type(problem).__name__)
            return {"snapshot": None, "samples": [], "workers": None}
        return {
            "snapshot": snapshot,
            "samples": samples,
            "workers": workers_state(snapshot, samples),
        }

    def landing(request: Request) -> Response:
        badges = [(BADGE_LABELS[b], BADGE_MEANINGS[b]) for b in Badge]
        return page("landing.html", request, live=live(), badges=badges, docs=_docs(context))

    def playground_form(request: Request) -> Response:
        return page(
            "playground.html",
            request,
            result=None,
            form={"kind": "results"},
            known=context.benchmarks.known(),
            limits=DEFAULT_LIMITS,
        )

    async def playground_post(request: Request) -> Response:
        refused = cross_site(request)
        if refused:
            return error(request, 403, "Refused", refused)
        declared = request.headers.get("content-length", "")
        if not declared.isdigit():
            return error(request, 411, "Length required", "The form must say its size.")
        if int(declared) > MAX_FORM_BYTES:
            return error(
                request,
                413,
                "Too large",
                f"The playground takes files up to {DEFAULT_LIMITS.max_file_bytes:,} bytes, "
                "like the bot.",
            )
        try:
            form = await request.form(max_files=1, max_fields=10, max_part_size=MAX_FORM_BYTES)
        except Exception:  # malformed multipart: the parser's own errors vary by version
            return error(request, 400, "Unreadable form", "Send the form from the page.")
        try:
            content, upload_name = await _content(form)
        finally:
            await form.close()
        fields = {
            name: _field(form.get(name))
            for name in ("kind", "file_name", "benchmark", "model_repo")
        }
        fields["kind"] = "benchmark" if fields["kind"] == "benchmark" else "results"
        if upload_name and not fields["file_name"]:
            fields["file_name"] = upload_name
        given = PlaygroundInput(
            content=content,
            kind=fields["kind"],
            file_name=fields["file_name"] or None,
            benchmark=fields["benchmark"] or None,
            model_repo=fields["model_repo"] or None,
        )
        return await run_in_threadpool(playground_run, request, given, fields, content)

    def playground_run(
        request: Request, given: PlaygroundInput, fields: dict[str, str], content: bytes
    ) -> Response:
        if not slots.acquire(blocking=False):
            return error(request, 503, "Busy", "Other checks are running; try again shortly.")
        try:
            result = run_playground(
                given,
                context.benchmarks.source(context.playground_max_benchmarks),
                context.registry,
                policy=context.policy,
                hub_url=context.hub_url,
                bot_name=context.bot_name,
            )
            expected = _expected(context, given.benchmark)
        except HubError as problem:
            log.warning("playground: Hub lookup failed: %s", type(problem).__name__)
            return error(
                request, 503, "The Hub did not answer", "A benchmark could not be read; retry."
            )
        finally:
            slots.release()
        fields["content"] = content.decode("utf-8", "replace")
        return page(
            "playground.html",
            request,
            result=result,
            form=fields,
            expected=expected,
            known=context.benchmarks.known(),
            limits=DEFAULT_LIMITS,
        )

    def history_index(request: Request) -> Response:
        wanted = (request.query_params.get("repo") or "").strip()
        if wanted:
            if not is_repo_id(wanted):
                return error(request, 400, "Not a repo id", "A model repo id is owner/name.")
            return RedirectResponse(f"/history/{wanted}", status_code=303)
        try:
            listed = [_text(r) for r in context.redis.zrevrange(HISTORY_REPOS, 0, 99)]
            repos = public_repos(context.redis, listed)
        except redis.RedisError:
            return error(request, 503, "Unavailable", "The bot's store does not answer.")
        return page("history.html", request, repo=None, repos=repos, prs=[])

    def history_repo(request: Request) -> Response:
        repo_id = f"{request.path_params['owner']}/{request.path_params['name']}"
        if not is_repo_id(repo_id):
            return error(request, 400, "Not a repo id", "A model repo id is owner/name.")
        try:
            # a repo not recorded as public on the Hub reads as one with no history
            shown = public_repos(context.redis, [repo_id])
            members = (
                context.redis.zrevrange(repo_history_key(repo_id), 0, HISTORY_PRS_SHOWN - 1)
                if shown
                else []
            )
            nums = [int(_text(n)) for n in members if _text(n).isdigit()]
            pipe = context.redis.pipeline(transaction=False)
            for num in nums:
                pipe.lrange(pr_history_key(repo_id, num), 0, -1)
            prs = [
                parse_pr_history(num, raws) for num, raws in zip(nums, pipe.execute(), strict=True)
            ]
        except redis.RedisError:
            return error(request, 503, "Unavailable", "The bot's store does not answer.")
        return page(
            "history.html",
            request,
            repo=repo_id,
            repos=[],
            prs=prs,
            pr_url=f"{context.hub_url}/{repo_id}/discussions/",
            commit_url=f"{context.hub_url}/{repo_id}/commit/",
        )

    def status(request: Request) -> Response:
        admin = context.operators.is_operator(request, context.clock())
        state = live()
        parked: list[dict[str, Any]] = []
        if admin and state["snapshot"] is not None:
            with contextlib.suppress(redis.RedisError):
                parked = [_parked_view(p) for p in parked_events(context.redis, limit=PARKED_SHOWN)]
        shown = page(
            "status.html",
            request,
            live=state,
            charts=build_charts(state["samples"], context.clock()),
            admin=admin,
            signin=context.signin is not None,
            token_signin=context.operators.token is not None,
            parked=parked,
            notice=REPLAY_NOTICES.get(request.query_params.get("notice", "")),
        )
        # what it shows depends on the operator cookie: no cache (a proxy, a CDN) may keep it
        shown.headers["Cache-Control"] = "no-store"
        return shown

    async def status_replay(request: Request) -> Response:
        refused = cross_site(request)
        if refused:
            return error(request, 403, "Refused", refused)
        if not context.operators.is_operator(request, context.clock()):
            return error(request, 403, "Operators only", "Sign in on the status page first.")
        form = await request.form(max_files=0, max_fields=2, max_part_size=4096)
        wanted = _field(form.get("digest"))
        return await run_in_threadpool(replay_one, wanted)

    def replay_one(wanted: str) -> Response:
        outcome = "gone"
        for parked_event in parked_events(context.redis, limit=PARKED_SHOWN):
            if hmac.compare_digest(_digest(parked_event.raw), wanted):
                outcome = replay(context.redis, parked_event, queue=context.queue).value
                break
        return RedirectResponse(f"/status?notice={outcome}", status_code=303)

    def collections_index(request: Request) -> Response:
        wanted = request.query_params.get("cid", "")
        if wanted:  # the form on this page names the collection in the query
            if wanted not in context.collections:
                return error(request, 404, "No such collection", "See the list of collections.")
            model = (request.query_params.get("model") or "").strip()
            query = f"?model={quote(model, safe='/')}" if model else ""
            return RedirectResponse(f"/collections/{quote(wanted)}{query}", status_code=303)
        return page(
            "collections.html",
            request,
            collections=sorted(context.collections.values(), key=lambda c: c.id),
            chosen=None,
            model="",
            shown=None,
        )

    def collection_page(request: Request) -> Response:
        stored = context.collections.get(request.path_params["cid"])
        if stored is None:
            return error(request, 404, "No such collection", "See the list of collections.")
        model = (request.query_params.get("model") or "").strip()[:200]
        shown = None
        if model:
            if not is_repo_id(model) or context.results_reader is None:
                return error(request, 400, "Not a repo id", "A model repo id is owner/name.")
            if not slots.acquire(blocking=False):
                return error(request, 503, "Busy", "Other checks are running; try again shortly.")
            try:
                if context.results_reader.repo_visibility(model) != "public":
                    # answered as for a repo that does not exist (the Hub's 404)
                    raise HubPermanentError("not a public repo", status=404)
                shown = standing(
                    stored,
                    model,
                    context.results_reader,
                    context.benchmarks.source(context.playground_max_benchmarks),
                    context.policy,
                )
            except HubError as problem:
                log.warning("collections: Hub read failed: %s", type(problem).__name__)
                return error(
                    request, 503, "The Hub did not answer", "The results could not be read."
                )
            finally:
                slots.release()
        return page(
            "collections.html",
            request,
            collections=sorted(context.collections.values(), key=lambda c: c.id),
            chosen=stored,
            model=model,
            shown=shown,
        )

    def style(request: Request) -> Response:
        headers = {"ETag": style_etag, "Cache-Control": "public, max-age=3600"}
        if request.headers.get("if-none-match") == style_etag:
            return Response(status_code=304, headers=headers)
        return Response(stylesheet, media_type="text/css", headers=headers)

    def healthz(request: Request) -> Response:
        return PlainTextResponse("ok")

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        sampler = asyncio.create_task(_sample_forever(context))
        try:
            yield
        finally:
            sampler.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await sampler
            context.redis.close()

    return Starlette(
        routes=[
            Route("/", landing, methods=["GET"]),
            Route("/playground", playground_form, methods=["GET"]),
            Route("/playground", playground_post, methods=["POST"]),
            Route("/history", history_index, methods=["GET"]),
            Route("/history/{owner}/{name}", history_repo, methods=["GET"]),
            Route("/collections", collections_index, methods=["GET"]),
            Route("/collections/{cid}", collection_page, methods=["GET"]),
            Route("/status", status, methods=["GET"]),
            *signin_routes(
                context.operators,
                context.signin,
                error,
                context.clock,
                public_https=context.public_https,
            ),
            Route("/status/replay", status_replay, methods=["POST"]),
            Route("/static/style.css", style, methods=["GET"]),
            Route("/web/healthz", healthz, methods=["GET"]),
        ],
        lifespan=lifespan,
    )


async def _sample_forever(context: WebContext) -> None:
    """Sample the figures every interval, so the charts fill even when nobody looks."""
    while True:
        try:
            snapshot = await run_in_threadpool(read_snapshot, context.redis, context.queue)
            await run_in_threadpool(
                record_sample, context.redis, snapshot, interval_s=context.sample_interval_s
            )
        except redis.RedisError as problem:
            log.warning("sampling skipped: %s", type(problem).__name__)
        await asyncio.sleep(context.sample_interval_s)


async def _content(form: Any) -> tuple[bytes, str | None]:
    """The uploaded file when one was chosen, else the pasted text (UTF-8)."""
    upload = form.get("upload")
    if isinstance(upload, UploadFile) and upload.filename:
        data = await upload.read(MAX_FORM_BYTES + 1)
        return data, upload.filename
    text = form.get("content")
    return (text if isinstance(text, str) else "").encode("utf-8"), None


def _field(value: Any) -> str:
    return value.strip()[:200] if isinstance(value, str) else ""


def _text(value: Any) -> str:
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


def _digest(raw: bytes) -> str:
    return hashlib.sha256(raw).hexdigest()[:32]


def _parked_view(parked_event: Any) -> dict[str, Any]:
    record = parked_event.record
    event = record.get("event") if isinstance(record.get("event"), dict) else {}
    return {
        "digest": _digest(parked_event.raw),
        "at": str(record.get("parked_at", ""))[:19],
        "reason": str(record.get("reason", "unknown"))[:60],
        "detail": str(record.get("detail", ""))[:300],
        "repo": str(event.get("repo_id", ""))[:100],
        "pr": str(event.get("pr_num", ""))[:10],
        "kind": str(event.get("kind", ""))[:20],
    }


def _expected(context: WebContext, benchmark: str | None) -> Any:
    """The benchmark picked or typed: its tasks and metrics, to show what to write."""
    if not benchmark or not is_repo_id(benchmark):
        return None
    found = context.benchmarks.lookup(benchmark, None)
    return found if isinstance(found, Benchmark) else {"missing": found.reason}


def _docs(context: WebContext) -> list[tuple[str, str, str | None]]:
    base = context.docs_url.rstrip("/") + "/" if context.docs_url else None
    return [(name, title, base + name if base else None) for name, title in DOCS]
