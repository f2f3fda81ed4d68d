"""Every Redis key the bot writes, spelled once, with who writes and who reads it: a key is an
interface between processes."""

from __future__ import annotations

#: Dedupe marks of queued events (`bot.queue.publishing`): `<prefix><DedupeKey.key>`, with a TTL.
DEDUPE_PREFIX = "evalbot:dedupe:"
#: The ledger of accepted events not yet finished (`bot.queue.publishing`): a sorted set of task
#: ids by the Redis time they are due, and a hash of their events. Publishers add, workers touch
#: and remove, each worker's sweep sends the overdue again; `/metrics` counts them.
LEDGER = "evalbot:ledger"
LEDGER_EVENTS = "evalbot:ledger:events"
#: Worker counters, `<family>:<label>` -> count (`workers.tasks`, `bot.store.deadletters`);
#: the receiver's `/metrics` reads them (`bot.store.worker_counters`).
STATS = "evalbot:stats"
#: Parked events, newest first (`bot.store.deadletters`); `evalbot parked`/`replay` and `/metrics`.
DEAD_LETTERS = "evalbot:dead-letters"
#: The fleet-wide Hub pause (`workers.hub_pause`); its PTTL is shown on `/metrics`.
HUB_PAUSE = "evalbot:hub-paused-until"
#: Reconciliation's one-run-at-a-time lock and its repo cursor (`workers.reconcile`).
RECONCILE_LOCK = "evalbot:reconcile:lock"
RECONCILE_CURSOR = "evalbot:reconcile:cursor"
#: Every repo that ever had a verdict, for reconciliation (`workers.model_history`).
VERDICT_REPOS = "evalbot:verdict-repos"
#: How long a PR's last verdict, its head checked without a report and a token's first-seen
#: time are kept (seconds).
VERDICT_TTL_S = 90 * 24 * 3600
#: jti bindings (`workers.runtime.RedisJtiBinder`): `<prefix><sha256(issuer, jti)>`.
JTI_PREFIX = "evalbot:jti:"
#: Fetched JWKS, their freshness marks and refetch cooldowns (`RedisKeyCache`).
JWKS_PREFIX = "evalbot:jwks:"
#: The token issuer's limits and audit counters (`bot.issuer.limits`), under this prefix.
ISSUER_PREFIX = "evalbot:issuer:"
#: The bounded PR history the workers record and the web pages read (`bot.store.history`), under
#: this prefix; the web process's sampled fleet snapshots (`bot.web.live`).
HISTORY_PREFIX = "evalbot:history"
WEB_SAMPLES = "evalbot:web:samples"
#: kombu's Redis transport keeps delivered, not yet acknowledged messages in this hash.
KOMBU_UNACKED = "unacked"
#: Live workers: their records (a hash) and their heartbeats (a sorted set by time)
#: (`workers.heartbeat_and_sweep` writes, `bot.store.heartbeats` reads).
WORKERS = "evalbot:workers"
WORKER_BEATS = "evalbot:worker-beats"
#: The digest of the maintainers allow-list the workers last judged commenters under
#: (`workers.commands`); the receiver drops a known stranger's commands while it holds.
MAINTAINERS_DIGEST = "evalbot:maintainers-digest"
STRANGER_PREFIX = "evalbot:stranger:"
#: How long a stranger is remembered: a user who becomes an org member is heard at the latest
#: this long after (the allow-list takes effect at once, through the digest).
STRANGER_TTL_S = 900
#: Per PR: exists for the recheck interval after a recheck run was queued to start at once,
#: and while the one deferred recheck run of that window waits (`bot.queue.publishing`).
RECHECK_WINDOW_PREFIX = "evalbot:recheck-window:"
RECHECK_FOLLOWUP_PREFIX = "evalbot:recheck-followup:"


def lease(repo_id: str, pr_num: int) -> str:
    """The per-PR lease one run holds while it works on the PR (`workers.pr_lease`)."""
    return f"evalbot:lease:{repo_id}:{pr_num}"


def verdict(repo_id: str, pr_num: int) -> str:
    """The head SHA of the PR's last published report (`workers.model_history`,
    reconciliation)."""
    return f"evalbot:verdict:{repo_id}:{pr_num}"


def checked(repo_id: str, pr_num: int) -> str:
    """The head SHA last checked without a report (no results files), for reconciliation."""
    return f"evalbot:checked:{repo_id}:{pr_num}"


def token_time(repo_id: str, digest: str) -> str:
    """When the Hub first recorded a token (`workers.token_times`): freshness is judged then."""
    return f"evalbot:token-time:{repo_id}:{digest}"


def attempts(task_id: str) -> str:
    """Per-message attempt counts of the task (`workers.tasks`)."""
    return f"evalbot:attempts:{task_id}"


def blob(blob_id: str) -> str:
    """A results file of a repo's main branch by git blob id (`workers.standing_and_clashes`, a
    cache)."""
    return f"evalbot:blob:{blob_id}"


def pr_claims(repo_id: str, pr_num: int, head: str) -> str:
    """The results an open PR claims at one head (`workers.standing_and_clashes`, a cache)."""
    return f"evalbot:pr-claims:{repo_id}:{pr_num}:{head}"


def stranger(repo_id: str, author_id: str) -> str:
    """A commenter a worker found to be no maintainer of the repo; the value is the allow-list
    digest they were judged under."""
    return f"{STRANGER_PREFIX}{repo_id}:{author_id}"


def recheck(repo_id: str, pr_num: int) -> tuple[str, str]:
    """The window and follow-up keys of one PR's rechecks."""
    return (
        f"{RECHECK_WINDOW_PREFIX}{repo_id}:{pr_num}",
        f"{RECHECK_FOLLOWUP_PREFIX}{repo_id}:{pr_num}",
    )


def eee_main_index(repo_id: str) -> str:
    """An EEE datastore's main, indexed (`workers.datastore_index`): a hash of path ->
    `<blob id> <normalised hash>` for every datastore file, and the field `@sha` naming the
    main commit it reflects."""
    return f"evalbot:eee:main:{repo_id.lower()}"


def eee_pr_hashes(repo_id: str, pr_num: int) -> str:
    """The records an open datastore PR adds or changes at datastore paths, path ->
    `<normalised hash> <sha256 of the bytes> <first seen, Hub time>`, with `@head` the head
    they were read at, `@author` its author's account id and `@v` the format
    (`workers.datastore_index`)."""
    return f"evalbot:eee:pr:{repo_id.lower()}:{pr_num}"


def eee_follow_ups(repo_id: str, pr_num: int, head: str) -> str:
    """How many follow-up runs a datastore PR's head had (`workers.datastore_history`)."""
    return f"evalbot:eee:follow-ups:{repo_id.lower()}:{pr_num}:{head}"


def eee_blob_hashes(repo_id: str) -> tuple[str, str]:
    """A datastore's contents hashed once (`workers.datastore_index.BlobHashes`): content id
    (git blob id or LFS sha256) -> `<normalised hash> <sha256>` or `-`; the current and the
    previous generation."""
    lowered = repo_id.lower()  # the Hub matches ids case-insensitively; so do these keys
    return f"evalbot:eee:blobs:{lowered}", f"evalbot:eee:blobs-old:{lowered}"


def source_record(repo_id: str, commit: str, path: str) -> str:
    """A datastore record a result links as its source, at a commit (`bot.store.records`, a
    cache: a commit's files never change)."""
    return f"evalbot:source:record:{repo_id.lower()}:{commit}:{path}"


def source_revision(repo_id: str, revision: str) -> str:
    """The commit a datastore's branch or tag named lately (`bot.store.records`, a short cache)."""
    return f"evalbot:source:revision:{repo_id.lower()}:{revision}"
