"""The errors `evalbot submit` and its API raise: what went wrong, and how to fix it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from huggingface_hub.errors import OfflineModeIsEnabled

from bot.hub.errors import HubTransientError, to_hub_error


class SubmitError(Exception):
    """The submission stopped; `request_id` (from the issuer) is what its operators look up."""

    def __init__(
        self,
        message: str,
        *,
        request_id: str | None = None,
        problems: Sequence[dict[str, Any]] = (),
    ) -> None:
        super().__init__(message)
        self.request_id = request_id
        self.problems = list(problems)

    def __str__(self) -> str:
        text = super().__str__()
        if self.request_id:
            text += f" (request id {self.request_id})"
        for problem in self.problems:
            where = f"entry {problem.get('index')}" if problem.get("index") is not None else "file"
            field = f" `{problem['field']}`" if problem.get("field") else ""
            text += f"\n  - {where}{field}: {problem.get('message')}"
            if problem.get("hint"):
                text += f" ({problem['hint']})"
        return text


class HubUnreachable(SubmitError):
    """The Hub could not be asked or did not answer (a connection refused or dropped, a
    timeout, offline mode, a 5xx or a 429): what it holds is unknown, so nothing is written
    on a guess. A retry may work; `evalbot submit` exits 2."""


class BaseUnmatched(SubmitError):
    """A dry run's base stands for no file the submission proposes: a usage error."""


#: Longest reason quoted from a failed Hub call (its own text can run to many lines).
MAX_REASON = 300


def one_line(text: object) -> str:
    """`text` on one line, at most `MAX_REASON` characters."""
    flat = " ".join(str(text).split())
    return flat if len(flat) <= MAX_REASON else flat[: MAX_REASON - 1] + "…"


def hub_failure(
    error: BaseException, endpoint: str, doing: str, *, then: str = "nothing was written"
) -> SubmitError | None:
    """The `SubmitError` for a Hub call that failed while `doing` (what was asked, e.g.
    "cannot read X on main"): `HubUnreachable` naming `endpoint` and the fix when the Hub did
    not answer (`then` says what that left undone), else the Hub's refusal on one line. None
    for an exception that is no Hub failure (a bug: the caller lets it propagate)."""
    mapped = to_hub_error(error)
    if mapped is None:
        return None
    if isinstance(mapped, HubTransientError):
        if _offline(error):
            return HubUnreachable(
                f"{doing}: HF_HUB_OFFLINE is set, so the Hub is not asked; {then}: unset "
                "HF_HUB_OFFLINE to reach the Hub"
            )
        return HubUnreachable(
            f"{doing}: the Hub at {endpoint} is unavailable ({one_line(mapped)}); {then}: "
            "retry, or check HF_ENDPOINT"
        )
    return SubmitError(f"{doing}: {one_line(mapped)}")


def _offline(error: BaseException) -> bool:
    """Whether `error` comes from huggingface_hub's offline mode (`HF_HUB_OFFLINE`)."""
    seen: BaseException | None = error
    for _depth in range(10):
        if seen is None:
            return False
        if isinstance(seen, OfflineModeIsEnabled):
            return True
        seen = seen.__cause__ or seen.__context__
    return False
