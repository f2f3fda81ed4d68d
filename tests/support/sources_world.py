"""The emulated world of the source-checked results' end-to-end tests: the trusted datastore
holding two real Every Eval Ever records at a pinned commit, the benchmarks those records name,
the model repo that cites them and the bot's webhook on its org (tests/samples/real-world/
every_eval_ever/community_evals/PROVENANCE.md)."""

from __future__ import annotations

from tests.conftest import REAL_WORLD
from tests.support.stackbot import BOT, Bot

SAMPLES = REAL_WORLD / "every_eval_ever" / "community_evals"
DATASTORE = "evaleval/EEE_datastore"
COMMIT = "5e1f0c2d9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d"  # the datastore's commit, pinned
MODEL = "01-ai/yi-1.5-34b-chat"
YI = "flat/objects/67/6f/676f4465-ce78-411a-9f5a-c97b3d2eac4f.json"
LLAMA_PRO = "flat/objects/98/ea/98ea850e-7019-4728-a558-8b1819ec47c2.json"


def datastore_records() -> dict[str, bytes]:
    """The two real records, at their datastore paths."""
    return {path: (SAMPLES / "datastore" / path).read_bytes() for path in (YI, LLAMA_PRO)}


def seed_sources_world(running: Bot) -> None:
    """Alice's org and model repo, the datastore at `COMMIT`, the records' benchmarks, and the
    bot's webhook on the org."""
    state = running.stack.hub.state
    state.add_org("01-ai", members={"alice": "write"})
    state.seed_repo("dataset", DATASTORE, datastore_records(), sha=COMMIT)
    eval_yaml = REAL_WORLD / "hf-benchmark-eval-yaml"
    for repo, name in (
        ("TIGER-Lab/MMLU-Pro", "TIGER-Lab__MMLU-Pro.eval.yaml"),
        ("Idavidrein/gpqa", "Idavidrein__gpqa.eval.yaml"),
    ):
        state.seed_repo("dataset", repo, {"eval.yaml": (eval_yaml / name).read_bytes()})
    state.seed_repo("model", MODEL, {"README.md": b"# Yi\n"})
    state.add_webhook(
        owner=BOT,
        url=f"{running.stack.receiver_url}/webhooks/hub",
        watched=[{"type": "org", "name": "01-ai"}],
        domains=["repo", "discussion"],
        secret=running.stack.secret,
    )
