"""`/collections`: the collections, and a model's standing in one (`bot.web.standing`)."""

from __future__ import annotations

import logging
from urllib.parse import quote

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from bot.adapters.collections_store import StoredCollection
from bot.hub.errors import HubError, HubPermanentError
from bot.validation.model import is_repo_id
from bot.web.site import Site
from bot.web.standing import Standing, standing

log = logging.getLogger("evalbot.web")


def routes(site: Site) -> list[Route]:
    context = site.context

    def listed() -> list[StoredCollection]:
        return sorted(context.collections.values(), key=lambda c: c.id)

    def index(request: Request) -> Response:
        wanted = request.query_params.get("cid", "")
        if wanted:  # the form on this page names the collection in the query
            if wanted not in context.collections:
                return site.error(request, 404, "No such collection", "See the list.")
            model = (request.query_params.get("model") or "").strip()
            query = f"?model={quote(model, safe='/')}" if model else ""
            return RedirectResponse(f"/collections/{quote(wanted)}{query}", status_code=303)
        return site.page(
            "collections.html", request, collections=listed(), chosen=None, model="", shown=None
        )

    def one(request: Request) -> Response:
        stored = context.collections.get(request.path_params["cid"])
        if stored is None:
            return site.error(request, 404, "No such collection", "See the list.")
        model = (request.query_params.get("model") or "").strip()[:200]
        shown: Standing | None = None
        if model:
            if not is_repo_id(model) or context.results_reader is None:
                return site.error(request, 400, "Not a repo id", "A model repo id is owner/name.")
            if not site.slots.acquire(blocking=False):
                return site.error(request, 503, "Busy", "Other checks are running; retry shortly.")
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
                if isinstance(problem, HubPermanentError) and problem.not_found:
                    return site.error(
                        request, 404, "No such model", f"The Hub has no model repo {model}."
                    )
                log.warning("collections: Hub read failed: %s", type(problem).__name__)
                return site.error(
                    request, 503, "The Hub did not answer", "The results could not be read."
                )
            finally:
                site.slots.release()
        return site.page(
            "collections.html",
            request,
            collections=listed(),
            chosen=stored,
            model=model,
            shown=shown,
        )

    return [
        Route("/collections", index, methods=["GET"]),
        Route("/collections/{cid}", one, methods=["GET"]),
    ]
