"""Whatever an entry holds, what the issuer signs is what `evalbot submit` writes: the JSON
the issuer receives, written by submit's own merge into a file on main, verifies with the
bot's verifier (or the issuer refused it). A difference would make a ✅ impossible, or sign
something other than what the PR holds."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.adapters.benchmarks_dir import DirectoryBenchmarkSource
from bot.issuer.refusals import Refusal
from bot.issuer.requests import parse_request
from bot.issuer.service import Issuer
from bot.submit.api import _token_key
from bot.submit.merge import merge_results
from bot.validation.validate import validate_results_files
from evalbot_dev.emulator.seed import SAMPLES
from tests.unit.issuer.test_app_hostile import ijson_text, ijson_values
from tests.unit.issuer.test_service import ALICE, MODEL, TARGET, build_issuer, verify_with_the_bot

MAIN = (
    "# kept by hand\n- dataset: {id: emulator-samples/hle-mini, task_id: hle}\n"
    '  value: 1\n  notes: "on main \\u0000"\n'
)


@pytest.fixture(scope="module")
def issuer(tmp_path_factory: pytest.TempPathFactory) -> Issuer:
    return build_issuer(tmp_path_factory.mktemp("chain"))[0]


@settings(
    max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    notes=ijson_text,
    details=ijson_values,
    extra=st.dictionaries(
        ijson_text.filter(lambda key: key not in TARGET), ijson_values, max_size=2
    ),
    value=st.floats(min_value=0, max_value=100),
)
def test_what_is_signed_is_what_submit_writes(
    issuer: Issuer, notes: str, details: Any, extra: dict[str, Any], value: float
) -> None:
    entry = {**TARGET, "notes": notes, "details": details, **extra}
    entry["metrics"] = [{"metric_id": "accuracy", "value": value}]
    body = json.dumps({"model_repo": MODEL, "entries": [entry]}).encode()
    try:
        request = parse_request(body)
        (token,) = issuer.issue(ALICE, request, "req")
    except Refusal:
        return  # refused: nothing signed
    written = merge_results(
        MAIN,
        [{**entry, _token_key(entry): token.verify_token}],
        path=".eval_results/hle-mini.yaml",
        replace=False,
    )
    (report,) = validate_results_files(
        {".eval_results/hle-mini.yaml": written.encode()},
        DirectoryBenchmarkSource(SAMPLES / "benchmarks"),
    )
    verify_with_the_bot(issuer, report)
    signed = report.entries[-1]
    assert signed.verification is not None
    assert signed.verification.status.value == "verified", signed.verification
