"""`bot.httpguards.SlowBodyGuard` at the ASGI level: the per-address bound on slow bodies holds
for requests that all started before any of them was counted slow."""

from __future__ import annotations

import asyncio

from starlette.requests import ClientDisconnect, Request
from starlette.responses import PlainTextResponse, Response
from starlette.types import Message, Receive, Scope, Send

from bot.httpguards import SlowBodyGuard

PER_CLIENT = 2
SLOW_AFTER_S = 0.05
TIMEOUT_S = 1.0


async def reads_body(scope: Scope, receive: Receive, send: Send) -> None:
    request = Request(scope, receive)
    try:
        body = await request.body()
    except ClientDisconnect:  # the guard's cut-off reads as the client gone
        return
    await PlainTextResponse(f"{len(body)}")(scope, receive, send)


def refuse(status: int) -> Response:
    return PlainTextResponse(str(status), status_code=status)


def scope(address: str) -> Scope:
    return {
        "type": "http",
        "method": "POST",
        "path": "/playground",
        "query_string": b"",
        "headers": [(b"content-length", b"1000")],
        "client": (address, 1234),
    }


async def trickling(guard: SlowBodyGuard, address: str) -> tuple[int, float]:
    """A request whose body never comes: its status and how long it was held."""
    loop = asyncio.get_running_loop()
    started = loop.time()
    statuses: list[int] = []

    async def receive() -> Message:
        await asyncio.sleep(3600)
        return {"type": "http.disconnect"}

    async def send(message: Message) -> None:
        if message["type"] == "http.response.start":
            statuses.append(int(message["status"]))

    await guard(scope(address), receive, send)
    return statuses[0], loop.time() - started


def test_slow_bodies_started_at_once_are_bounded_per_address() -> None:
    guard = SlowBodyGuard(
        reads_body,
        timeout_s=TIMEOUT_S,
        refuse=refuse,
        per_client=PER_CLIENT,
        slow_after_s=SLOW_AFTER_S,
    )

    async def burst() -> list[tuple[int, float]]:
        return await asyncio.gather(*(trickling(guard, "203.0.113.9") for _ in range(6)))

    answers = asyncio.run(burst())
    held = [elapsed for status, elapsed in answers if status == 408]
    refused = [elapsed for status, elapsed in answers if status == 429]
    assert len(held) == PER_CLIENT, answers
    assert len(refused) == 6 - PER_CLIENT, answers
    # beyond the bound a request is let go once it turns slow, not at the deadline
    assert all(elapsed < TIMEOUT_S / 2 for elapsed in refused), answers
    assert not guard._slow  # every place given back


def test_another_address_is_not_refused_for_a_busy_one() -> None:
    guard = SlowBodyGuard(
        reads_body,
        timeout_s=0.3,
        refuse=refuse,
        per_client=1,
        slow_after_s=SLOW_AFTER_S,
    )

    async def two() -> tuple[tuple[int, float], tuple[int, float]]:
        return await asyncio.gather(
            trickling(guard, "203.0.113.9"), trickling(guard, "198.51.100.7")
        )

    assert [status for status, _ in asyncio.run(two())] == [408, 408]


def test_a_body_that_arrives_at_once_passes_while_its_address_is_at_the_bound() -> None:
    # Behind a proxy uvicorn does not trust (a Space's), every client shares one address: a
    # visitor holding the bound must not turn away a webhook whose body comes with its headers.
    guard = SlowBodyGuard(
        reads_body,
        timeout_s=TIMEOUT_S,
        refuse=refuse,
        per_client=1,
        slow_after_s=SLOW_AFTER_S,
    )

    async def prompt() -> int:
        statuses: list[int] = []
        sent = False

        async def receive() -> Message:
            nonlocal sent
            if sent:
                await asyncio.sleep(3600)
            sent = True
            return {"type": "http.request", "body": b"x" * 1000, "more_body": False}

        async def send(message: Message) -> None:
            if message["type"] == "http.response.start":
                statuses.append(int(message["status"]))

        await guard(scope("10.0.0.1"), receive, send)
        return statuses[0]

    async def both() -> tuple[tuple[int, float], int]:
        holding = asyncio.create_task(trickling(guard, "10.0.0.1"))
        await asyncio.sleep(SLOW_AFTER_S * 3)  # the trickling one now holds the address's place
        assert guard._slow["10.0.0.1"] == 1
        status = await prompt()  # while the trickling one is still held
        return await holding, status

    held, status = asyncio.run(both())
    assert status == 200
    assert held[0] == 408


def test_an_answer_given_before_the_body_is_in_closes_the_connection() -> None:
    # A route that reads no body (a page, a health check) answers at once; uvicorn would then
    # keep the connection open for as long as the rest of the declared body trickles in.
    async def reads_nothing(scope: Scope, receive: Receive, send: Send) -> None:
        await PlainTextResponse("page")(scope, receive, send)

    guard = SlowBodyGuard(reads_nothing, timeout_s=TIMEOUT_S, refuse=refuse)
    starts: list[Message] = []

    async def receive() -> Message:
        await asyncio.sleep(3600)
        return {"type": "http.disconnect"}

    async def send(message: Message) -> None:
        if message["type"] == "http.response.start":
            starts.append(message)

    asyncio.run(guard(scope("203.0.113.9"), receive, send))
    assert starts[0]["status"] == 200
    assert (b"connection", b"close") in starts[0]["headers"]


def test_an_answer_after_the_whole_body_keeps_the_connection() -> None:
    guard = SlowBodyGuard(reads_body, timeout_s=TIMEOUT_S, refuse=refuse)
    starts: list[Message] = []

    async def receive() -> Message:
        return {"type": "http.request", "body": b"x" * 1000, "more_body": False}

    async def send(message: Message) -> None:
        if message["type"] == "http.response.start":
            starts.append(message)

    asyncio.run(guard(scope("203.0.113.9"), receive, send))
    assert starts[0]["status"] == 200
    assert (b"connection", b"close") not in starts[0]["headers"]
