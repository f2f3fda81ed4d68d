"""Reading the results file on main: a repo that cannot be read is a `SubmitError` (the
Hub's RepositoryNotFoundError escaped `evalbot submit` as a traceback)."""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any

import pytest
from huggingface_hub.errors import EntryNotFoundError, HfHubHTTPError, RepositoryNotFoundError

from bot.submit.errors import SubmitError
from bot.submit.pulls import marker, read_main_file, submission_key


class Api:
    def __init__(self, outcome: Any) -> None:
        self.outcome = outcome

    def hf_hub_download(self, **kwargs: Any) -> str:
        if isinstance(self.outcome, Exception):
            raise self.outcome
        return str(self.outcome)


def _http_error(kind: type[HfHubHTTPError], status: int) -> HfHubHTTPError:
    # The HTTP library huggingface_hub raises with (its errors subclass that library's).
    http: Any = importlib.import_module(HfHubHTTPError.__mro__[1].__module__.split(".")[0])
    request = http.Request("GET", "https://hub.example/api/models/a/b")
    return kind("no such repo", response=http.Response(status, request=request))


def test_a_missing_file_is_none_and_a_present_one_is_read(tmp_path: Path) -> None:
    assert read_main_file(Api(EntryNotFoundError("gone")), "a/b", "x.yaml") is None
    (tmp_path / "x.yaml").write_text("- a: 1\n", encoding="utf-8")
    assert read_main_file(Api(tmp_path / "x.yaml"), "a/b", "x.yaml") == "- a: 1\n"


def test_an_unreadable_repo_or_file_is_a_submit_error(tmp_path: Path) -> None:
    with pytest.raises(SubmitError, match=r"cannot read x\.yaml on a/b main"):
        read_main_file(Api(_http_error(RepositoryNotFoundError, 404)), "a/b", "x.yaml")
    (tmp_path / "x.yaml").write_bytes(b"\xff\xfe")
    with pytest.raises(SubmitError, match=r"cannot read x\.yaml on a/b main"):
        read_main_file(Api(tmp_path / "x.yaml"), "a/b", "x.yaml")


def test_a_submission_key_names_the_model_and_the_set_of_results() -> None:
    alpha = ("org/bench", "alpha", "")
    beta = ("org/bench", "beta", "")
    key = submission_key("alice/model", [alpha, beta], None)
    assert key == submission_key("Alice/Model", [beta, alpha, alpha], None)
    assert key == submission_key("alice/model", [("ORG/Bench", "alpha", ""), beta], None)
    assert key != submission_key("alice/model", [alpha], None)
    assert key != submission_key("alice/model", [alpha, ("org/bench", "beta", "run 2")], None)
    assert key != submission_key("alice/other", [alpha, beta], None)
    assert len(key) == 32


def test_a_pr_key_replaces_the_results_in_the_key() -> None:
    nightly = submission_key("alice/model", [("org/bench", "alpha", "")], "nightly")
    assert nightly == submission_key("alice/model", [("org/bench", "beta", "")], "nightly")
    assert nightly != submission_key("alice/model", [("org/bench", "beta", "")], "weekly")
    assert nightly != submission_key("bob/model", [], "nightly")
    assert marker(nightly) == f"<!-- evalbot-submit: {nightly} -->"
