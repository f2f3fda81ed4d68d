"""Datastore records that results link as their source, kept in Redis for the workers; a Redis
error is a miss: the cache saves Hub calls, it never decides a verdict."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import redis

from bot.store import keys

#: How long a record is kept after it was last read from the Hub (seconds).
RECORD_TTL_S = 30 * 24 * 3600
#: Records larger than this are not kept (the datastore's are tens of KB).
MAX_KEPT_BYTES = 1024 * 1024
#: What redis-py accepts as a hash field or value.
RedisField = bytes | bytearray | memoryview | str | int | float
#: How long the content ids of main at one of its commits are kept (seconds).
MAIN_IDS_TTL_S = 24 * 3600


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

    def main(self, repo_id: str) -> tuple[str, str] | None:
        try:
            found = self.client.get(keys.source_main(repo_id))
        except redis.RedisError:
            return None
        text = found.decode("ascii", "replace") if isinstance(found, bytes) else found
        if not isinstance(text, str):
            return None
        sha, _, visibility = text.partition(" ")
        return (sha, visibility) if sha and visibility else None

    def keep_main(self, repo_id: str, sha: str, visibility: str, ttl_s: int) -> None:
        try:
            self.client.set(keys.source_main(repo_id), f"{sha} {visibility}", ex=ttl_s)
        except redis.RedisError:
            return

    def main_ids(self, repo_id: str, main_sha: str, paths: Iterable[str]) -> dict[str, str]:
        wanted = list(paths)
        if not wanted:
            return {}
        try:
            found = self.client.hmget(keys.source_main_ids(repo_id, main_sha), wanted)
        except redis.RedisError:
            return {}
        ids: dict[str, str] = {}
        for path, value in zip(wanted, found, strict=True):
            if isinstance(value, bytes):
                ids[path] = value.decode("ascii", "replace")
            elif isinstance(value, str):
                ids[path] = value
        return ids

    def keep_main_ids(self, repo_id: str, main_sha: str, ids: Mapping[str, str]) -> None:
        if not ids:
            return
        key = keys.source_main_ids(repo_id, main_sha)
        try:
            with self.client.pipeline(transaction=True) as pipe:
                fields: dict[RedisField, RedisField] = {}
                fields.update(ids)
                pipe.hset(key, mapping=fields)
                pipe.expire(key, MAIN_IDS_TTL_S)
                pipe.execute()
        except redis.RedisError:
            return
