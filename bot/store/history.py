"""The PR history the web pages show: each verdict the workers reached (`bot.store.verdicts`), kept
in Redis only while the repo is public, with its readers (docs/web.md, "PR history")."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any

import redis

from bot.store import keys
from bot.store.verdicts import KeptEntry, Verdict, encode_verdict, parse_verdict

HISTORY_REPOS = f"{keys.HISTORY_PREFIX}:repos"
MAX_VERDICTS_PER_PR = 20
MAX_PRS_PER_REPO = 200
MAX_REPOS = 1000
RETENTION_S = 90 * 24 * 3600
#: How long a visibility read from the Hub stands for a repo whose webhook says it is not
#: private: whether a public repo is gated is in no payload, so it is read at most this often.
VISIBILITY_FRESH_S = 300
#: Of a PR's verdicts, the newest this many keep their details (problems, tokens, results);
#: the older ones keep their counts and first problem only.
MAX_DETAILED_PER_PR = 5
#: Per benchmark, the PRs whose newest verdict holds one of its results (its page lists them).
MAX_PRS_PER_BENCHMARK = 500
HISTORY_BENCHMARKS = f"{keys.HISTORY_PREFIX}:benchmarks"


def pr_history_key(repo_id: str, pr_num: int) -> str:
    return f"{keys.HISTORY_PREFIX}:pr:{repo_id}:{pr_num}"


def pr_details_key(repo_id: str, pr_num: int) -> str:
    return f"{keys.HISTORY_PREFIX}:prd:{repo_id}:{pr_num}"


def repo_history_key(repo_id: str) -> str:
    return f"{keys.HISTORY_PREFIX}:repo:{repo_id}"


def visibility_key(repo_id: str) -> str:
    return f"{keys.HISTORY_PREFIX}:visibility:{repo_id}"


def visibility_read_key(repo_id: str) -> str:
    """Exists for `VISIBILITY_FRESH_S` after the workers read the repo's visibility from the
    Hub (`repos.info`): until then the recorded visibility stands without another read."""
    return f"{keys.HISTORY_PREFIX}:visibility-read:{repo_id}"


def recent_visibility(client: redis.Redis, repo_id: str) -> str | None:
    """The visibility recorded for `repo_id` if the Hub was asked for it less than
    `VISIBILITY_FRESH_S` ago, else None (one round trip)."""
    pipe = client.pipeline(transaction=False)
    pipe.get(visibility_key(repo_id))
    pipe.exists(visibility_read_key(repo_id))
    recorded, fresh = pipe.execute()
    if not fresh or recorded is None:
        return None
    text = _text(recorded)
    return text if text in ("public", "private", "gated") else None


def hide_repo(client: redis.Redis, repo_id: str) -> None:
    """Take `repo_id` out of the pages: the Hub no longer shows it to the bot (private, gated
    or deleted since its last verdict), so it gets no verdict that would record that."""
    pipe = client.pipeline(transaction=False)
    pipe.set(visibility_key(repo_id), "private", ex=RETENTION_S)
    pipe.delete(repo_history_key(repo_id))
    pipe.zrem(HISTORY_REPOS, repo_id)
    pipe.execute()


def public_repos(client: redis.Redis, repo_ids: Sequence[str]) -> list[str]:
    """Those of `repo_ids` whose history may be shown: recorded as public on the Hub."""
    if not repo_ids:
        return []
    marks = client.mget([visibility_key(repo_id) for repo_id in repo_ids])
    return [repo_id for repo_id, mark in zip(repo_ids, marks, strict=True) if mark == b"public"]


def benchmark_history_key(benchmark_id: str) -> str:
    """Benchmark ids are matched case-insensitively, as the validator looks them up."""
    return f"{keys.HISTORY_PREFIX}:benchmark:{benchmark_id.lower()}"


@dataclass(frozen=True, slots=True)
class PrHistory:
    num: int
    verdicts: tuple[Verdict, ...]  # newest first


def record_verdict(
    client: redis.Redis,
    repo_id: str,
    pr_num: int,
    verdict: Verdict,
    *,
    visibility: str,
    now: datetime | None = None,
) -> None:
    """Append `verdict` to the PR's history and bump the PR and the repo; trim and expire."""
    pipe = client.pipeline(transaction=False)
    add_verdict(pipe, repo_id, pr_num, verdict, visibility=visibility, now=now)
    pipe.execute()


def add_verdict(
    pipe: redis.client.Pipeline,
    repo_id: str,
    pr_num: int,
    verdict: Verdict,
    *,
    visibility: str,
    now: datetime | None = None,
    read_from_hub: bool = False,
) -> None:
    """`record_verdict`'s commands, queued on `pipe`: the pipeline sends them in the round
    trip that records the run's other keys (every round trip of a run is budgeted).
    `visibility` is the repo's on the Hub: anything but `public` stores no verdict and takes
    the repo out of the pages; `read_from_hub`: it was just read from the Hub, and stands
    for `VISIBILITY_FRESH_S` (`recent_visibility`)."""
    moment = (now or datetime.now(UTC)).timestamp()
    pr_key, repo_key = pr_history_key(repo_id, pr_num), repo_history_key(repo_id)
    pipe.set(visibility_key(repo_id), visibility, ex=RETENTION_S)
    if read_from_hub and visibility != "unknown":
        pipe.set(visibility_read_key(repo_id), "1", ex=VISIBILITY_FRESH_S)
    if visibility != "public":
        if visibility != "unknown":  # a Hub that did not answer hides, and deletes nothing
            pipe.delete(repo_key, pr_key, pr_details_key(repo_id, pr_num))
            pipe.zrem(HISTORY_REPOS, repo_id)
        return
    details_key = pr_details_key(repo_id, pr_num)
    summary = replace(verdict, problems=verdict.problems[:1], tokens=(), entries=())
    pipe.lpush(pr_key, encode_verdict(summary))
    pipe.ltrim(pr_key, 0, MAX_VERDICTS_PER_PR - 1)
    pipe.expire(pr_key, RETENTION_S)
    pipe.lpush(details_key, encode_verdict(verdict))
    pipe.ltrim(details_key, 0, MAX_DETAILED_PER_PR - 1)
    pipe.expire(details_key, RETENTION_S)
    pipe.zadd(repo_key, {str(pr_num): moment})
    pipe.zremrangebyrank(repo_key, 0, -MAX_PRS_PER_REPO - 1)
    pipe.expire(repo_key, RETENTION_S)
    pipe.zadd(HISTORY_REPOS, {repo_id: moment})
    pipe.zremrangebyrank(HISTORY_REPOS, 0, -MAX_REPOS - 1)
    pipe.expire(HISTORY_REPOS, RETENTION_S)
    # Indexed: results on a benchmark the Hub has (the `leaderboard` badge), so a PR naming
    # made-up datasets adds no key.
    indexed = {entry.benchmark for entry in verdict.entries if "leaderboard" in entry.badges}
    for benchmark in sorted(indexed):
        key = benchmark_history_key(benchmark)
        pipe.zadd(key, {f"{repo_id}#{pr_num}": moment})
        pipe.zremrangebyrank(key, 0, -MAX_PRS_PER_BENCHMARK - 1)
        pipe.expire(key, RETENTION_S)
        pipe.zadd(HISTORY_BENCHMARKS, {benchmark: moment})
    if indexed:
        pipe.zremrangebyrank(HISTORY_BENCHMARKS, 0, -MAX_REPOS - 1)
        pipe.expire(HISTORY_BENCHMARKS, RETENTION_S)


def parse_pr_history(
    num: int, raws: Sequence[bytes | str], detailed: Sequence[bytes | str] = ()
) -> PrHistory:
    """The PR's verdicts, newest first, one per head (a head checked again, by a recheck or a
    redelivered event, shows its newest verdict only); each with its details when `detailed`
    holds them. Both lists are written together, newest first, so the details of the verdict at
    position i are at position i (checked: same head and time, else the summary is kept)."""
    seen: set[str] = set()
    verdicts: list[Verdict] = []
    for position, raw in enumerate(raws):
        verdict = parse_verdict(raw)
        if verdict is None or verdict.head in seen:
            continue
        seen.add(verdict.head)
        full = parse_verdict(detailed[position]) if position < len(detailed) else None
        same = full is not None and (full.head, full.at) == (verdict.head, verdict.at)
        verdicts.append(full if same and full is not None else verdict)
    return PrHistory(num, tuple(verdicts))


def _pr_numbers(client: redis.Redis, repo_id: str, limit: int) -> list[int]:
    members = client.zrevrange(repo_history_key(repo_id), 0, limit - 1)
    return [int(text) for text in (_text(n) for n in members) if text.isdigit()]


def read_repo_prs(client: redis.Redis, repo_id: str, limit: int) -> list[PrHistory]:
    """The repo's `limit` most recently checked PRs, newest first, each verdict with its
    counts and first problem (no details), in two round trips."""
    nums = _pr_numbers(client, repo_id, limit)
    pipe = client.pipeline(transaction=False)
    for num in nums:
        pipe.lrange(pr_history_key(repo_id, num), 0, -1)
    return [parse_pr_history(num, raws) for num, raws in zip(nums, pipe.execute(), strict=True)]


def read_newest(client: redis.Redis, repo_id: str, limit: int) -> list[PrHistory]:
    """The repo's `limit` most recently checked PRs, each with its newest verdict only, in
    full (what a badge counts), in two round trips."""
    nums = _pr_numbers(client, repo_id, limit)
    pipe = client.pipeline(transaction=False)
    for num in nums:
        pipe.lindex(pr_details_key(repo_id, num), 0)
    found: list[PrHistory] = []
    for num, raw in zip(nums, pipe.execute(), strict=True):
        verdict = parse_verdict(raw) if isinstance(raw, bytes | str) else None
        found.append(PrHistory(num, (verdict,) if verdict is not None else ()))
    return found


def read_pr(client: redis.Redis, repo_id: str, pr_num: int) -> PrHistory:
    """One PR's verdicts, newest first, the newest with their details (none when the bot has
    not checked the PR lately), in one round trip."""
    pipe = client.pipeline(transaction=False)
    pipe.lrange(pr_history_key(repo_id, pr_num), 0, -1)
    pipe.lrange(pr_details_key(repo_id, pr_num), 0, -1)
    raws, detailed = pipe.execute()
    return parse_pr_history(pr_num, raws, detailed)


def recent_repos(client: redis.Redis, limit: int) -> list[str]:
    """The repos with the newest verdicts, newest first."""
    return [_text(member) for member in client.zrevrange(HISTORY_REPOS, 0, limit - 1)]


def find_repo(client: redis.Redis, wanted: str) -> str | None:
    """The repo id as the bot recorded it, matched case-insensitively (the Hub treats
    `Alice/Model` and `alice/model` as one repo), or None when it has no history."""
    if client.exists(repo_history_key(wanted)):
        return wanted
    lowered = wanted.lower()
    for member in client.zrange(HISTORY_REPOS, 0, MAX_REPOS - 1):
        if _text(member).lower() == lowered:
            return _text(member)
    return None


def _text(value: Any) -> str:
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)


@dataclass(frozen=True, slots=True)
class BenchmarkResult:
    """One result for a benchmark, on the benchmark's page: where it came from and its verdict."""

    repo_id: str
    pr_num: int
    state: str
    at: str
    head: str
    entry: KeptEntry


def read_benchmark(client: redis.Redis, benchmark_id: str, limit: int) -> list[BenchmarkResult]:
    """The results for `benchmark_id` in the newest verdicts of the PRs that hold one, newest
    PR first, in two round trips."""
    members = [
        _text(m) for m in client.zrevrange(benchmark_history_key(benchmark_id), 0, limit - 1)
    ]
    places: list[tuple[str, int]] = []
    for member in members:
        repo_id, _, num = member.rpartition("#")
        if repo_id and num.isdigit():
            places.append((repo_id, int(num)))
    pipe = client.pipeline(transaction=False)
    for place_repo, place_num in places:
        pipe.lindex(pr_details_key(place_repo, place_num), 0)
    found: list[BenchmarkResult] = []
    wanted = benchmark_id.lower()
    for (place_repo, place_num), raw in zip(places, pipe.execute(), strict=True):
        verdict = parse_verdict(raw) if isinstance(raw, bytes | str) else None
        if verdict is None:
            continue
        found.extend(
            BenchmarkResult(place_repo, place_num, verdict.state, verdict.at, verdict.head, entry)
            for entry in verdict.entries
            if entry.benchmark.lower() == wanted
        )
    return found


def recent_benchmarks(client: redis.Redis, limit: int) -> list[str]:
    """The benchmarks with the newest results, newest first."""
    return [_text(member) for member in client.zrevrange(HISTORY_BENCHMARKS, 0, limit - 1)]
