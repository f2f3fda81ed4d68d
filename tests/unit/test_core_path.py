"""How many modules of the pure core one results file passes through on its way to the comment.

The worker hands a PR's files to the core in three calls: `validate_results_files`,
`verify_reports` and `render_comment`. This test makes those calls on a real results file with a
real signed token (after one warm-up run, as `bench/webhook_path.py` does with a whole PR), traces
every Python function they call, and counts the files of `bot/validation`, `bot/tokens` and
`bot/report` that ran: the core's share of the webhook's path, which `bench/webhook_path.py`
measures for the whole bot. The budget keeps a newcomer's walk through the core short: a module
that shares its job with one already on the path belongs in it.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from types import FrameType
from typing import Any

from bot.report.comment import CommentContext, render_comment
from bot.tokens.issuers import IssuerRegistry, policies_from_mapping
from bot.tokens.verify import MemoryJtiBinder, verify_reports
from bot.validation.model import BenchmarkLookup, BenchmarkNotFound, FileReport
from bot.validation.validate import validate_results_files
from tests.support.tokens import HLE, MODEL_REPO, NOW, TARGET_FILE, SigningIssuer

REPO_ROOT = Path(__file__).resolve().parents[2]
CORE = ("bot/validation/", "bot/tokens/", "bot/report/")
#: Files of the pure core on one results file's way to the comment.
CORE_PATH_BUDGET = 8
PATH = ".eval_results/hle.yaml"


class OneBenchmark:
    """The benchmark source: HLE, whatever revision is asked for."""

    def lookup(self, dataset_id: str, revision: str | None) -> BenchmarkLookup:
        if dataset_id.lower() == HLE.repo_id:
            return HLE
        return BenchmarkNotFound(dataset_id, "not in this test's source")


def signed_file(issuer: SigningIssuer) -> bytes:
    """TARGET_FILE with a token for its first entry, signed for the entry as the loader reads it."""
    unsigned = validate_results_files({PATH: TARGET_FILE.encode()}, OneBenchmark())
    token = issuer.token_for(unsigned[0].entries[0])
    first, second = TARGET_FILE.split("- dataset:\n")[1:]
    signed = f"- dataset:\n{first}  verify_token: {token}\n- dataset:\n{second}"
    return signed.encode()


def check_and_render(content: bytes, registry: IssuerRegistry) -> tuple[list[FileReport], str]:
    """The worker's three calls into the core, in its order."""
    reports = validate_results_files({PATH: content}, OneBenchmark())
    verify_reports(
        reports,
        model_repo=MODEL_REPO,
        registry=registry,
        binder=MemoryJtiBinder(),
        reference_time=lambda _file, _entry: datetime.fromtimestamp(NOW, UTC),
    )
    context = CommentContext(repo_id=MODEL_REPO, pr_num=3, head_sha="a" * 40, bot_name="evalbot")
    return reports, render_comment(reports, context)


@contextmanager
def functions_called() -> Iterator[set[str]]:
    """The files of every Python function called inside the block (a profile hook, as in bench)."""
    called: set[str] = set()

    def profile(frame: FrameType, event: str, _arg: Any) -> None:
        if event == "call":
            called.add(frame.f_code.co_filename)

    sys.setprofile(profile)
    threading.setprofile(profile)
    try:
        yield called
    finally:
        sys.setprofile(None)
        threading.setprofile(None)


def core_files(files: set[str]) -> set[str]:
    """The repo-relative paths among `files` that belong to the pure core."""
    found: set[str] = set()
    for name in files:
        try:
            relative = Path(name).resolve().relative_to(REPO_ROOT).as_posix()
        except ValueError:
            continue
        if relative.startswith(CORE):
            found.add(relative)
    return found


def test_one_results_file_passes_through_at_most_the_budget_of_core_modules() -> None:
    issuer = SigningIssuer()
    registry = IssuerRegistry(policies_from_mapping({"issuers": [issuer.config()]}))
    content = signed_file(issuer)
    check_and_render(content, registry)  # warm-up: what runs once per process is not the path
    with functions_called() as called:
        reports, comment = check_and_render(content, registry)
    files = core_files(called)
    assert reports[0].entries[0].verification.status.value == "verified", "not the full path"
    assert "verified" in comment
    assert len(files) <= CORE_PATH_BUDGET, sorted(files)
