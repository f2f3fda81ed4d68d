"""The pages' styled error page for answers given outside a page handler (the receiver's
forwarder, the slow-body guard), with the pages' security headers."""

from __future__ import annotations

from functools import lru_cache
from urllib.parse import urlsplit

from jinja2 import Environment, PackageLoader, select_autoescape
from starlette.responses import HTMLResponse

#: Title and text of the refusals given before a page handler runs, by status.
REFUSALS = {
    400: ("Request incomplete", "The request ended before its body did; send the form again."),
    404: ("Not found", "No page has this address."),
    408: ("Too slow", "The request's body did not arrive in time; send the form again."),
    413: ("Too large", "The request is larger than the pages accept."),
    429: ("Too many at once", "Too many requests from your address are still arriving."),
    502: ("Unavailable", "The web pages are not answering; try again shortly."),
}


@lru_cache(maxsize=1)
def _templates() -> Environment:
    return Environment(
        loader=PackageLoader("bot.web", "templates"),
        autoescape=select_autoescape(default=True, default_for_string=True),
        trim_blocks=True,
        lstrip_blocks=True,
    )


def security_headers(hub_url: str) -> dict[str, str]:
    """No script at all, nothing loaded from elsewhere (the fonts are the pages' own), framed
    only by the Hub (a Space)."""
    parts = urlsplit(hub_url)
    return {
        "Content-Security-Policy": (
            "default-src 'none'; style-src 'self'; font-src 'self'; img-src 'self' data:; "
            "form-action 'self'; base-uri 'none'; "
            f"frame-ancestors 'self' {parts.scheme}://{parts.netloc}"
        ),
        "X-Content-Type-Options": "nosniff",
        "Referrer-Policy": "same-origin",
    }


def error_page(status: int, *, bot_name: str, hub_url: str) -> HTMLResponse:
    """The styled page for one of `REFUSALS`' statuses."""
    title, detail = REFUSALS[status]
    html = (
        _templates()
        .get_template("error.html")
        .render(bot_name=bot_name, path="/", title=title, detail=detail)
    )
    return HTMLResponse(html, status_code=status, headers=security_headers(hub_url))
