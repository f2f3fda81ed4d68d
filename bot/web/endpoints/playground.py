"""`/playground`: the form, and one file checked as the bot would (`bot.web.playground`)."""

from __future__ import annotations

import logging
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.datastructures import UploadFile
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from bot.hub.errors import HubError
from bot.validation.limits import DEFAULT_LIMITS
from bot.validation.model import Benchmark, is_repo_id
from bot.web.guards import cross_site
from bot.web.page_context import WebContext
from bot.web.playground import PlaygroundInput, run_playground
from bot.web.site import Site, field_text

log = logging.getLogger("evalbot.web")

#: A playground POST larger than this is refused before it is parsed (413): the file cap and
#: room for the form's other fields.
MAX_FORM_BYTES = DEFAULT_LIMITS.max_file_bytes + 64 * 1024


def routes(site: Site) -> list[Route]:
    context = site.context

    def form_page(request: Request) -> Response:
        return site.page(
            "playground.html",
            request,
            result=None,
            form={"kind": "results"},
            known=context.benchmarks.known(),
            limits=DEFAULT_LIMITS,
        )

    async def post(request: Request) -> Response:
        refused = _refusal(request)
        if refused is not None:
            return site.error(request, *refused)
        try:
            form = await request.form(max_files=1, max_fields=10, max_part_size=MAX_FORM_BYTES)
        except Exception:  # malformed multipart: the parser's own errors vary by version
            return site.error(request, 400, "Unreadable form", "Send the form from the page.")
        try:
            content, upload_name = await _content(form)
        finally:
            await form.close()
        fields = {
            name: field_text(form.get(name))
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
        return await run_in_threadpool(check, request, given, fields)

    def check(request: Request, given: PlaygroundInput, fields: dict[str, str]) -> Response:
        if not site.slots.acquire(blocking=False):
            return site.error(request, 503, "Busy", "Other checks are running; try again shortly.")
        try:
            result = run_playground(
                given,
                context.benchmarks.source(context.playground_max_benchmarks),
                context.registry,
                policy=context.policy,
                hub_url=context.hub_url,
                bot_name=context.bot_name,
                mappings=context.mappings,
            )
            expected = _expected(context, given.benchmark)
        except HubError as problem:
            log.warning("playground: Hub lookup failed: %s", type(problem).__name__)
            return site.error(request, 503, *context.benchmarks.unreadable(problem))
        finally:
            site.slots.release()
        # An archive (an inspect-ai `.eval` log) is not text: the form does not send it back.
        binary = given.content[:4] == b"PK\x03\x04"
        fields["content"] = "" if binary else given.content.decode("utf-8", "replace")
        return site.page(
            "playground.html",
            request,
            result=result,
            form=fields,
            expected=expected,
            known=context.benchmarks.known(),
            limits=DEFAULT_LIMITS,
        )

    return [
        Route("/playground", form_page, methods=["GET"]),
        Route("/playground", post, methods=["POST"]),
    ]


def _refusal(request: Request) -> tuple[int, str, str] | None:
    """Why the POST is refused before its body is read: another site, no size, too large."""
    refused = cross_site(request)
    if refused:
        return 403, "Refused", refused
    declared = request.headers.get("content-length", "")
    if not declared.isdigit():
        return 411, "Length required", "The form must say its size."
    if int(declared) > MAX_FORM_BYTES:
        return (
            413,
            "Too large",
            f"The playground takes files up to {DEFAULT_LIMITS.max_file_bytes:,} bytes, "
            "like the bot.",
        )
    return None


async def _content(form: Any) -> tuple[bytes, str | None]:
    """The uploaded file when one was chosen, else the pasted text (UTF-8)."""
    upload = form.get("upload")
    if isinstance(upload, UploadFile) and upload.filename:
        data = await upload.read(MAX_FORM_BYTES + 1)
        return data, upload.filename
    text = form.get("content")
    return (text if isinstance(text, str) else "").encode("utf-8"), None


def _expected(context: WebContext, benchmark: str | None) -> Any:
    """The benchmark picked or typed: its tasks and metrics, to show what to write."""
    if not benchmark or not is_repo_id(benchmark):
        return None
    found = context.benchmarks.lookup(benchmark, None)
    return found if isinstance(found, Benchmark) else {"missing": found.reason}
