"""Why a result's source record was not checked, as the comment says it
(docs/comment.md#sources)."""

from __future__ import annotations

SOURCE_PULL_REQUEST = (
    "{revision} is a pull request of {datastore}, not merged: link the merged record (blob/main/…)"
)
SOURCE_NOT_MERGED = (
    "the record at {revision} is not the one on {datastore}'s main (not merged, or changed"
    " since): link the merged record (blob/main/…)"
)
SOURCE_MERGE_UNKNOWN = "could not tell whether the record is merged: {error}"
SOURCE_UNREAD = "the Hub did not serve the record: {error}"
SOURCE_BUDGET_SPENT = (
    "this run's Hub budget for source records ({limit} requests) is spent; the next run goes"
    " on from here"
)
