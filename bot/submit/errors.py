"""The one error `evalbot submit` and its API raise: what went wrong, and how to fix it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


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
