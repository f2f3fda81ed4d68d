"""The pieces every endpoint module shares: rendering a page (or an error page) with the
security headers, the playground's slots, and the one-line live state."""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import redis
from jinja2 import Environment, FileSystemLoader, select_autoescape
from starlette.requests import Request
from starlette.responses import HTMLResponse

from bot.store.history import public_repos
from bot.store.worker_counters import read_snapshot
from bot.web.errorpage import security_headers
from bot.web.live import read_samples, record_sample, workers_state
from bot.web.page_context import WebContext

log = logging.getLogger("evalbot.web")

WEB_ROOT = Path(str(resources.files("bot").joinpath("web")))


@dataclass(frozen=True, slots=True)
class Site:
    """One app's shared state; built by `make_site`, handed to each endpoint module."""

    context: WebContext
    templates: Environment
    security_headers: dict[str, str]
    #: Bounds the Hub-reading, CPU-heavy work (playground checks, standings) running at once.
    slots: threading.BoundedSemaphore

    @property
    def redis(self) -> redis.Redis:
        """The bot's Redis; only the page families mounted with one ask for it."""
        if self.context.redis is None:
            raise RuntimeError("this page needs the bot's Redis, which this process has not")
        return self.context.redis

    @property
    def local(self) -> bool:
        """`evalbot playground`: the playground and the landing, without the bot's pages."""
        return self.context.redis is None

    def page(self, name: str, request: Request, status: int = 200, **values: Any) -> HTMLResponse:
        html = self.templates.get_template(name).render(
            bot_name=self.context.bot_name, path=request.url.path, local=self.local, **values
        )
        return HTMLResponse(html, status_code=status, headers=self.security_headers)

    def error(self, request: Request, status: int, title: str, detail: str) -> HTMLResponse:
        return self.page("error.html", request, status, title=title, detail=detail)

    def public(self, repo_id: str) -> bool:
        """Whether a page may show `repo_id`'s history: the workers recorded it as public on
        the Hub with its last verdict (`bot.store.history.public_repos`). Raises
        `redis.RedisError`."""
        return bool(public_repos(self.redis, [repo_id]))

    def public_among(self, repo_ids: list[str]) -> list[str]:
        """Those of `repo_ids` a page may show, in one round trip."""
        return public_repos(self.redis, repo_ids)

    def live(self) -> dict[str, Any]:
        """The one-line live state (and what the status page charts), or `None` values when
        Redis does not answer: a page never fails because Redis is down."""
        context = self.context
        if context.redis is None:
            return {"snapshot": None, "samples": [], "workers": None, "local": True}
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


def make_site(context: WebContext) -> Site:
    templates = Environment(
        loader=FileSystemLoader(str(WEB_ROOT / "templates")),
        autoescape=select_autoescape(default=True, default_for_string=True),
        trim_blocks=True,
        lstrip_blocks=True,
    )
    headers = security_headers(context.hub_url)
    return Site(context, templates, headers, threading.BoundedSemaphore(context.playground_slots))


def field_text(value: Any) -> str:
    """A form or query field as the pages use it: a string, trimmed, at most 200 characters."""
    return value.strip()[:200] if isinstance(value, str) else ""


def text(value: Any) -> str:
    """A Redis value as text."""
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)
