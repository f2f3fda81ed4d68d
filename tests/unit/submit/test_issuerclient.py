"""What `evalbot submit` sends the issuer: entries it cannot sign are refused before any call,
with the entry named (httpx raised a bare ValueError for YAML's `.nan`: a traceback)."""

from __future__ import annotations

from typing import Any

import pytest

from bot.submit.credentials import Credential
from bot.submit.errors import SubmitError
from bot.submit.issuerclient import request_tokens

UNREACHABLE = "http://127.0.0.1:9"  # discard port: a call would fail with a different error


@pytest.mark.parametrize(
    "value", [float("nan"), float("inf"), -float("inf"), 2**53 + 1, {"deep": [float("nan")]}]
)
def test_an_entry_the_issuer_cannot_sign_is_named_before_any_call(value: Any) -> None:
    entries = [{"value": 1.0}, {"value": value}]
    with pytest.raises(SubmitError, match=r"entry 1 cannot be signed"):
        request_tokens(
            UNREACHABLE, Credential("hf-token", "hf_x"), model_repo="a/b", entries=entries
        )


def test_a_dry_run_refuses_what_the_issuer_could_not_sign_and_asks_it_nothing() -> None:
    from bot.submit import submit

    entry = {"dataset": {"id": "a/b", "task_id": "t"}, "value": float("nan")}
    with pytest.raises(SubmitError, match=r"entry 0 cannot be signed"):
        submit([entry], model_repo="a/m", issuer_url=UNREACHABLE, dry_run=True, environ={})
    with pytest.raises(SubmitError, match=r"entry 0: `dataset.id` names no benchmark repo"):
        submit([{"value": 1.0}], model_repo="a/m", issuer_url=UNREACHABLE, dry_run=True)
