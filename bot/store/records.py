"""Datastore records that results link as their source, kept in Redis for the workers; a Redis
error is a miss: the cache saves Hub calls, it never decides a verdict."""

from __future__ import annotations

import redis

from bot.store import keys

#: How long a record is kept after it was last read from the Hub (seconds).
RECORD_TTL_S = 30 * 24 * 3600
#: Records larger than this are not kept (the datastore's are tens of KB).
MAX_KEPT_BYTES = 1024 * 1024


class RedisRecordCache:
    def __init__(self, client: redis.Redis) -> None:
        self.client = client

    def record(self, repo_id: str, commit: str, path: str) -> bytes | None:
        try:
            found = self.client.get(keys.source_record(repo_id, commit, path))
        except redis.RedisError:
            return None
        if isinstance(found, str):  # a client built with decode_responses=True
            return found.encode("utf-8", "surrogateescape")
        return found if isinstance(found, bytes) else None

    def keep_record(self, repo_id: str, commit: str, path: str, content: bytes) -> None:
        if len(content) > MAX_KEPT_BYTES:
            return
        try:
            self.client.set(keys.source_record(repo_id, commit, path), content, ex=RECORD_TTL_S)
        except redis.RedisError:
            return

    def commit(self, repo_id: str, revision: str) -> str | None:
        try:
            found = self.client.get(keys.source_revision(repo_id, revision))
        except redis.RedisError:
            return None
        if isinstance(found, bytes):
            return found.decode("ascii", "replace")
        return found if isinstance(found, str) else None

    def keep_commit(self, repo_id: str, revision: str, commit: str, ttl_s: int) -> None:
        try:
            self.client.set(keys.source_revision(repo_id, revision), commit, ex=ttl_s)
        except redis.RedisError:
            return
