"""Reading an HTTP request's body under a size cap: the one way every service of the bot does it
(the webhook receiver, the token issuer, the web pages' forwarder on a one-port Space).

A declared `Content-Length` over the cap is refused before a single body byte is read; a
chunked body declares none, so the bytes are counted while they arrive and the read stops at
the first chunk past the cap. Memory is therefore bounded by the cap whatever the sender says
(docs/security.md#adversarial-inputs, item 2). Time is the caller's to bound, around this
call: each service has its own budget.
"""

from __future__ import annotations

from typing import Literal

from starlette.requests import ClientDisconnect, Request

#: Why a body was not read: over the cap, a `Content-Length` that is not a number, or a
#: sender that went away mid-body.
Problem = Literal["too-large", "bad-length", "disconnected"]


class BodyRefused(Exception):
    """The body was not read; `problem` says why, for the service's own answer."""

    def __init__(self, problem: Problem) -> None:
        super().__init__(problem)
        self.problem: Problem = problem


async def read_body(request: Request, cap: int) -> bytes:
    """The whole body, at most `cap` bytes; `BodyRefused` otherwise."""
    declared = request.headers.get("content-length")
    if declared is not None:
        if not (declared.isascii() and declared.isdigit()):
            raise BodyRefused("bad-length")
        if int(declared) > cap:
            raise BodyRefused("too-large")
    chunks: list[bytes] = []
    size = 0
    try:
        async for chunk in request.stream():
            size += len(chunk)
            if size > cap:
                raise BodyRefused("too-large")
            chunks.append(chunk)
    except ClientDisconnect as error:
        raise BodyRefused("disconnected") from error
    return b"".join(chunks)
