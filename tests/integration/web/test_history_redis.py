"""The PR history in a real Redis: newest first, capped per PR, per repo and overall, and
every key expiring (the retention docs/web.md states)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
import redis

from bot.report.counts import Counts
from bot.store import history, verdicts
from evalbot_dev.devstack.redis import RedisServer

pytestmark = pytest.mark.integration


def test_history_is_newest_first_capped_and_expiring(
    redis_server: RedisServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(history, "MAX_PRS_PER_REPO", 3)
    client = redis.Redis.from_url(redis_server.url)
    counts = Counts(1, 0, 1, 0, 0, 0)
    for num in range(1, 6):
        for push in range(history.MAX_VERDICTS_PER_PR + 5):
            at = datetime.fromtimestamp(1_800_000_000 + num * 100 + push, UTC)
            verdict = verdicts.verdict_of(f"{push:040x}", "edited", "open", counts, at)
            history.record_verdict(client, "alice/model", num, verdict, visibility="public", now=at)
    kept = client.lrange(history.pr_history_key("alice/model", 5), 0, -1)
    assert len(kept) == history.MAX_VERDICTS_PER_PR
    newest = verdicts.parse_verdict(kept[0])
    assert newest is not None
    assert newest.head == f"{history.MAX_VERDICTS_PER_PR + 4:040x}"
    prs = client.zrevrange(history.repo_history_key("alice/model"), 0, -1)
    assert prs == [b"5", b"4", b"3"]
    assert client.zrange(history.HISTORY_REPOS, 0, -1) == [b"alice/model"]
    for key in (
        history.pr_history_key("alice/model", 5),
        history.repo_history_key("alice/model"),
        history.HISTORY_REPOS,
    ):
        assert 0 < client.ttl(key) <= history.RETENTION_S
    client.close()


def test_visibility_decides_what_the_history_keeps_and_shows(redis_server: RedisServer) -> None:
    """Public: kept and shown. A Hub that did not answer (`unknown`): hidden, nothing deleted,
    shown again at the next public verdict. Private or gated: deleted and hidden."""
    client = redis.Redis.from_url(redis_server.url)
    counts = Counts(1, 0, 1, 0, 0, 0)
    at = datetime.fromtimestamp(1_800_000_000, UTC)

    def record(num: int, visibility: str) -> None:
        verdict = verdicts.verdict_of(f"{num:040x}", "posted", "open", counts, at)
        history.record_verdict(client, "acme/m", num, verdict, visibility=visibility, now=at)

    record(1, "public")
    assert history.public_repos(client, ["acme/m"]) == ["acme/m"]
    record(2, "unknown")
    assert history.public_repos(client, ["acme/m"]) == []
    assert client.zrange(history.repo_history_key("acme/m"), 0, -1) == [b"1"]  # kept
    record(3, "public")
    assert history.public_repos(client, ["acme/m"]) == ["acme/m"]
    assert client.zrange(history.repo_history_key("acme/m"), 0, -1) == [b"1", b"3"]
    for hidden in ("private", "gated"):
        record(4, hidden)
        assert history.public_repos(client, ["acme/m"]) == []
        assert not client.exists(history.repo_history_key("acme/m"))
        assert client.zscore(history.HISTORY_REPOS, "acme/m") is None
        record(5, "public")
    assert history.public_repos(client, ["never/seen"]) == []  # no record: not shown
