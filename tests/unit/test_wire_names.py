"""The names a running deployment shares across processes and versions, pinned to their strings.

A receiver of one version queues for workers of another during a rolling upgrade, and Redis keeps
what an earlier version wrote: the Celery task names, the queue and the Redis keys
must not move when modules do (docs/deploy.md, "Upgrades"). Loggers are named by string, not by
module, for the same reason: operators' dashboards filter on them.
"""

from __future__ import annotations

import ast
from pathlib import Path

from bot.queue.publishing import QUEUE, TASK_NAME
from bot.store import keys
from tests.conftest import REPO_ROOT
from workers.app import RECONCILE_TASK
from workers.reconcile import reconcile
from workers.tasks import process_pr_event


def test_the_celery_task_names_and_the_queue_are_the_deployed_ones() -> None:
    assert TASK_NAME == "evalbot.process_pr_event"
    assert RECONCILE_TASK == "evalbot.reconcile"
    assert process_pr_event.name == "evalbot.process_pr_event"
    assert reconcile.name == "evalbot.reconcile"
    assert QUEUE == "evalbot"


def test_the_redis_keys_and_prefixes_are_the_deployed_ones() -> None:
    assert {
        name: value
        for name, value in vars(keys).items()
        if name.isupper() and isinstance(value, str)
    } == {
        "DEDUPE_PREFIX": "evalbot:dedupe:",
        "LEDGER": "evalbot:ledger",
        "LEDGER_EVENTS": "evalbot:ledger:events",
        "STATS": "evalbot:stats",
        "DEAD_LETTERS": "evalbot:dead-letters",
        "HUB_PAUSE": "evalbot:hub-paused-until",
        "RECONCILE_LOCK": "evalbot:reconcile:lock",
        "RECONCILE_CURSOR": "evalbot:reconcile:cursor",
        "VERDICT_REPOS": "evalbot:verdict-repos",
        "JTI_PREFIX": "evalbot:jti:",
        "JWKS_PREFIX": "evalbot:jwks:",
        "ISSUER_PREFIX": "evalbot:issuer:",
        "HISTORY_PREFIX": "evalbot:history",
        "WEB_SAMPLES": "evalbot:web:samples",
        "KOMBU_UNACKED": "unacked",
        "WORKERS": "evalbot:workers",
        "WORKER_BEATS": "evalbot:worker-beats",
        "MAINTAINERS_DIGEST": "evalbot:maintainers-digest",
        "STRANGER_PREFIX": "evalbot:stranger:",
        "RECHECK_WINDOW_PREFIX": "evalbot:recheck-window:",
        "RECHECK_FOLLOWUP_PREFIX": "evalbot:recheck-followup:",
    }


def test_the_per_item_redis_keys_are_the_deployed_ones() -> None:
    repo, head = "Acme/Model", "a" * 40
    assert keys.lease(repo, 7) == "evalbot:lease:Acme/Model:7"
    assert keys.verdict(repo, 7) == "evalbot:verdict:Acme/Model:7"
    assert keys.checked(repo, 7) == "evalbot:checked:Acme/Model:7"
    assert keys.token_time(repo, "d1") == "evalbot:token-time:Acme/Model:d1"
    assert keys.attempts("t1") == "evalbot:attempts:t1"
    assert keys.blob("b1") == "evalbot:blob:b1"
    assert keys.pr_claims(repo, 7, head) == f"evalbot:pr-claims:Acme/Model:7:{head}"
    assert keys.stranger(repo, "u1") == "evalbot:stranger:Acme/Model:u1"
    assert keys.recheck(repo, 7) == (
        "evalbot:recheck-window:Acme/Model:7",
        "evalbot:recheck-followup:Acme/Model:7",
    )
    assert keys.eee_main_index(repo) == "evalbot:eee:main:acme/model"
    assert keys.eee_pr_hashes(repo, 7) == "evalbot:eee:pr:acme/model:7"
    assert keys.eee_follow_ups(repo, 7, head) == f"evalbot:eee:follow-ups:acme/model:7:{head}"
    assert keys.eee_blob_hashes(repo) == (
        "evalbot:eee:blobs:acme/model",
        "evalbot:eee:blobs-old:acme/model",
    )
    assert keys.source_record(repo, head, "data/x.json") == (
        f"evalbot:source:record:acme/model:{head}:data/x.json"
    )
    assert keys.source_revision(repo, "main") == "evalbot:source:revision:acme/model:main"


def logger_names(root: Path) -> set[str]:
    """Every `logging.getLogger(...)` argument under `root`: a string, or `__name__`."""
    names: set[str] = set()
    for path in root.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "getLogger"
                and node.args
            ):
                argument = node.args[0]
                if isinstance(argument, ast.Constant) and isinstance(argument.value, str):
                    names.add(argument.value)
                elif isinstance(argument, ast.Name) and argument.id == "__name__":
                    names.add(f"{path.relative_to(REPO_ROOT).with_suffix('')}".replace("/", "."))
    return names


def test_the_logger_names_do_not_follow_module_paths() -> None:
    named = logger_names(REPO_ROOT / "bot") | logger_names(REPO_ROOT / "workers")
    assert named == {
        "evalbot.issuer",
        "evalbot.publish",
        "evalbot.receiver",
        "evalbot.reconcile",
        "evalbot.web",
        "evalbot.web.audit",
        "evalbot.worker",
        # the one logger named by its module: the token verifier's
        "bot.tokens.verify",
    }
