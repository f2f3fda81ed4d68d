"""The one exception the emulator's logic raises, carrying what the Hub puts on an error response.

`huggingface_hub.utils.hf_raise_for_status` maps errors from the `X-Error-Code` header first
(over plain http the "401 means repo not found" fallback does not apply), so every error the
emulator answers names its code when the Hub would send one.
"""

from __future__ import annotations


class HubError(Exception):
    """An error response: HTTP status, optional `X-Error-Code`, and the `X-Error-Message` text."""

    def __init__(
        self,
        status: int,
        message: str,
        code: str | None = None,
        extra: dict[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.code = code
        #: More fields for the JSON body (a 409 on repo create names the existing repo's `url`).
        self.extra = dict(extra or {})


REPO_NOT_FOUND = "RepoNotFound"
REVISION_NOT_FOUND = "RevisionNotFound"
ENTRY_NOT_FOUND = "EntryNotFound"
GATED_REPO = "GatedRepo"
