"""`submit`: the whole framework-side chain, for `evalbot submit` and for frameworks to call."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from huggingface_hub import HfApi, get_token, is_offline_mode
from huggingface_hub.errors import OIDCError

from bot.convert.api import Conversion
from bot.hub.errors import HubError, HubTransientError
from bot.hub.identity import HubIdentity, whoami
from bot.submit.converted import ConvertedOutput, converted_entries
from bot.submit.credentials import ci_credential
from bot.submit.errors import BaseUnmatched, HubUnreachable, SubmitError, hub_failure
from bot.submit.issuerclient import (
    check_issuer_url,
    check_signable,
    issuer_audience,
    request_tokens,
)
from bot.submit.merge import merge_results
from bot.submit.pulls import open_or_update, read_main_file, submission_key
from bot.validation.model import benchmark_file_stem, is_repo_id
from bot.validation.yamlload import load_yaml

DEFAULT_ENDPOINT = "https://huggingface.co"


@dataclass(frozen=True)
class Submission:
    files: dict[str, str]  # repo path -> the text proposed
    pr_url: str | None = None  # None for a dry run
    pr_num: int | None = None
    updated: bool = False  # an open PR of ours was updated instead of a new one opened
    jtis: list[str] = field(default_factory=list)
    #: Files of a dry run whose copy on main was not read (offline, no `base`): their text is
    #: only the new entries, not what the PR would hold.
    unread: tuple[str, ...] = ()


def read_entries(path: Path) -> list[dict[str, Any]]:
    """The entries of a results YAML file (strict YAML 1.2, like the bot reads them)."""
    try:
        content = path.read_bytes()
    except OSError as error:
        raise SubmitError(f"cannot read {path}: {error}") from error
    loaded = load_yaml(content)
    errors = [d for d in loaded.diagnostics if d.is_error]
    if errors:
        first = errors[0]
        raise SubmitError(f"{path}:{first.line or 0}: {first.message}")
    if not isinstance(loaded.data, list) or not all(isinstance(e, dict) for e in loaded.data):
        raise SubmitError(f"{path}: expected a list of result entries")
    return list(loaded.data)


def _token_key(entry: Mapping[str, Any]) -> str:
    # The live Hub format spells it camelCase; the target spec snake_case.
    return "verifyToken" if "value" in entry and "metrics" not in entry else "verify_token"


#: Longer titles name only how many tasks of how many benchmarks the PR holds.
MAX_TITLE = 150


def _legacy_title(benchmarks: Sequence[str], framework: str | None) -> str:
    """The title PRs had when it was how `evalbot submit` found them (benchmarks only)."""
    names = ", ".join(sorted(benchmarks))
    return f"Evaluation results: {names}" + (f" ({framework})" if framework else "")


def _title(tasks: Mapping[str, Sequence[str]], framework: str | None) -> str:
    by = f" ({framework})" if framework else ""
    named = ", ".join(f"{benchmark} [{', '.join(tasks[benchmark])}]" for benchmark in tasks)
    title = f"Evaluation results: {named}{by}"
    if len(title) <= MAX_TITLE:
        return title
    count = sum(len(names) for names in tasks.values())
    return f"Evaluation results: {count} tasks of {len(tasks)} benchmarks{by}"


def _description(files: Mapping[str, str], count: int, framework: str | None) -> str:
    listed = "\n".join(f"- `{path}`" for path in sorted(files))
    by = f" by {framework}" if framework else ""
    return (
        f"{count} evaluation result(s){by}, each with a `verify_token` from a trusted issuer, "
        f"so the results can be marked verified.\n\n{listed}\n\n"
        "Opened with `evalbot submit`; a re-run of the same job (the same results, or the "
        "same `--pr-key`) updates this PR."
    )


#: What a dry run without the Hub writes where each converted entry's benchmark commit will be.
DRY_RUN_REVISION = "<the benchmark's commit on main when submitted>"


def _benchmark_revision(api: HfApi) -> Callable[[str], str]:
    """The benchmark repo's current commit on main (what a converted entry is pinned to)."""

    def revision(benchmark: str) -> str:
        try:
            sha = api.dataset_info(benchmark).sha
        except Exception as error:
            doing = f"cannot read the benchmark {benchmark}'s commit"
            failure = hub_failure(error, api.endpoint, doing)
            if failure is None:
                raise
            raise failure from error
        if not sha:
            raise SubmitError(f"the Hub names no commit for the benchmark {benchmark}")
        return sha

    return revision


#: What a dry run writes where each entry's token will be.
DRY_RUN_TOKEN = "<issued by the issuer when submitted>"  # noqa: S105 - a placeholder


def _dry_run_files(
    api: HfApi | None,
    model_repo: str,
    entries: Sequence[dict[str, Any]],
    *,
    replace: bool,
    base: Mapping[str, str],
) -> tuple[dict[str, str], tuple[str, ...]]:
    """The files a submission would propose, with `DRY_RUN_TOKEN` for each token, filed by
    the benchmark each entry names (the issuer would name it canonically), each merged with
    its copy in `base` (repo path -> text), else with main's, read through `api`; with no
    `api` (offline), only the new entries, and its path is in the second value."""
    by_file: dict[str, list[dict[str, Any]]] = {}
    for index, entry in enumerate(entries):
        check_signable(index, entry)
        dataset = entry.get("dataset")
        benchmark = dataset.get("id") if isinstance(dataset, dict) else None
        if not isinstance(benchmark, str) or not is_repo_id(benchmark):
            raise SubmitError(f"entry {index}: `dataset.id` names no benchmark repo (org/name)")
        path = f".eval_results/{benchmark_file_stem(benchmark)}.yaml"
        by_file.setdefault(path, []).append({**entry, _token_key(entry): DRY_RUN_TOKEN})
    stray = sorted(set(base) - set(by_file))
    if stray:
        proposed = ", ".join(sorted(by_file))
        raise BaseUnmatched(
            f"the base given for {', '.join(stray)} stands for no file this submission "
            f"proposes ({proposed}); name each copy after the file it stands for"
        )
    files: dict[str, str] = {}
    unread: list[str] = []
    for path, held in by_file.items():
        if path in base:
            main_text: str | None = base[path]
        elif api is not None:
            main_text = read_main_file(api, model_repo, path)
        else:
            main_text = None
            unread.append(path)
        where = path if path not in base else f"{path} (its base)"
        files[path] = merge_results(main_text, held, path=where, replace=replace)
    return files, tuple(sorted(unread))


def _whoami(api: HfApi, token: str) -> HubIdentity:
    """Whose `token` is, asked of the Hub the PR goes to (never of the issuer)."""
    try:
        return whoami(api, token)
    except HubTransientError as error:
        doing = "cannot check the Hub identity token"
        raise (hub_failure(error, api.endpoint, doing) or SubmitError(doing)) from error
    except HubError as error:
        raise SubmitError(f"the Hub did not accept the Hub identity token: {error}") from error


def hub_token(
    hf_token: str | None,
    env: Mapping[str, str],
    model_repo: str,
    endpoint: str = DEFAULT_ENDPOINT,
) -> str | bool:
    """The token that opens the PR: `hf_token`, else `HF_TOKEN` (a third party opening a
    community PR), else a Trusted Publishers token when `HF_OIDC_RESOURCE` names the model
    repo: huggingface_hub exchanges the job's OIDC ID token for a token scoped to that repo,
    valid an hour (it reads the process environment). False (no token) otherwise."""
    token = hf_token or env.get("HF_TOKEN")
    if token:
        return token
    resource = env.get("HF_OIDC_RESOURCE")
    if not resource:
        return False
    if resource != model_repo:
        raise SubmitError(
            f"HF_OIDC_RESOURCE is {resource!r} but the model repo is {model_repo!r}: a Trusted "
            "Publishers token can only change the repo it is scoped to; unset HF_OIDC_RESOURCE "
            "or set it to the model repo"
        )
    try:
        exchanged = get_token()
    except Exception as error:
        failure = hub_failure(
            error, endpoint, f"cannot exchange the job's ID token for {model_repo}"
        )
        if isinstance(failure, HubUnreachable):
            raise failure from error
        if failure is None and not isinstance(error, OIDCError):
            raise
        raise SubmitError(
            f"the Hub refused the Trusted Publishers token exchange for {model_repo} ({error}); "
            "register this workflow as a trusted publisher in the repo's settings, or set "
            "HF_TOKEN"
        ) from error
    if not exchanged:
        raise SubmitError(f"the Hub gave no token for {model_repo} (Trusted Publishers)")
    return exchanged


def _pinned(
    parts: Sequence[dict[str, Any] | ConvertedOutput] | Conversion,
    api: HfApi | None,
    *,
    allow_partial: bool,
    model_revision: str | None,
) -> list[dict[str, Any]]:
    """The entries of `parts`, each conversion's refused or pinned (`converted_entries`); with
    no `api` (a dry run offline), benchmarks are pinned to `DRY_RUN_REVISION`."""
    if isinstance(parts, Conversion):
        parts = [ConvertedOutput("", parts)]
    revision = _benchmark_revision(api) if api is not None else lambda _: DRY_RUN_REVISION
    entries: list[dict[str, Any]] = []
    for part in parts:
        if not isinstance(part, ConvertedOutput):
            entries.append(part)
            continue
        try:
            entries += converted_entries(
                part.conversion,
                allow_partial=allow_partial,
                model_revision=model_revision,
                benchmark_revision=revision,
            )
        except SubmitError as error:
            if not part.path:
                raise
            raise type(error)(f"{part.path}: {error}") from error  # HubUnreachable stays one
    return entries


def _refuse_options(
    *, dry_run: bool, issuer_url: str | None, pr_key: str | None, base: Mapping[str, str] | None
) -> None:
    """Refuse, before anything is asked, what cannot be submitted as given."""
    if pr_key is not None and not pr_key.strip():
        raise SubmitError("--pr-key must not be empty")
    if base and not dry_run:
        raise SubmitError(
            "a base (--base FILE) is for a dry run only: a submission merges into main's "
            "files as the Hub has them"
        )
    if issuer_url is not None:
        check_issuer_url(issuer_url)
    elif not dry_run:
        raise SubmitError("no issuer: pass --issuer URL or set EVALBOT_ISSUER_URL")


def _hub(
    env: Mapping[str, str],
    endpoint: str | None,
    hf_token: str | None,
    model_repo: str,
    *,
    dry_run: bool,
) -> HfApi | None:
    """The Hub client; None offline (`HF_HUB_OFFLINE`), where only a dry run goes on."""
    if is_offline_mode():
        if dry_run:
            return None
        raise HubUnreachable(
            "HF_HUB_OFFLINE is set, so the Hub is not asked and no PR can be opened; unset "
            "HF_HUB_OFFLINE (a dry run works offline)"
        )
    hub_url = endpoint or env.get("HF_ENDPOINT") or DEFAULT_ENDPOINT
    return HfApi(endpoint=hub_url, token=hub_token(hf_token, env, model_repo, hub_url))


def submit(
    entries: Sequence[dict[str, Any] | ConvertedOutput] | Conversion,
    *,
    model_repo: str,
    issuer_url: str | None = None,
    audience: str | None = None,
    framework: str | None = None,
    replace: bool = False,
    dry_run: bool = False,
    hf_token: str | None = None,
    endpoint: str | None = None,
    environ: Mapping[str, str] | None = None,
    allow_partial: bool = False,
    model_revision: str | None = None,
    pr_key: str | None = None,
    hub_identity: str | None = None,
    base: Mapping[str, str] | None = None,
) -> Submission:
    """Get a token for each entry, write `.eval_results/<benchmark>.yaml` merged with main,
    and open (or update) one PR; with `dry_run`, only return the files it would propose.

    `entries` are result entries (a results YAML's, `read_entries`), or a framework output's
    `bot.convert.entries_from(...)` conversion, or a mix of entries and several outputs'
    conversions (`ConvertedOutput`, whose file a refusal names): each conversion refused as
    `evalbot convert` would refuse it (`allow_partial` lets a failed or partial run through),
    its revisions pinned (`model_revision` when the output records none;
    `bot.submit.converted`). All of them go to one PR.

    The PR is this submission's own: one per model repo and set of results (benchmark, task
    and notes of each entry), or per `pr_key` when given (`bot.submit.pulls`).

    The job's identity for the issuer is found in `environ` (`bot.submit.credentials`); a Hub
    token is sent only from the variable `hub_identity` names, and only when it is read-only.
    A dry run asks the issuer nothing (a GitLab ID token is single-use: asking would spend
    it), so it needs no `issuer_url`, and proposes the files with `DRY_RUN_TOKEN` where each
    token would be. `base` (a dry run's only: repo path -> text) stands for main's copy of a
    file, for when the Hub cannot be read. Offline (`HF_HUB_OFFLINE`), a dry run asks the Hub
    nothing: a file without a base is only its new entries (`Submission.unread`), a converted
    entry's benchmark commit `DRY_RUN_REVISION`.

    Main's files are read through the Hub seam; only the Hub's "no such file" means there is
    none. A Hub that did not answer is `HubUnreachable`, raised before anything is written."""
    _refuse_options(dry_run=dry_run, issuer_url=issuer_url, pr_key=pr_key, base=base)
    env = os.environ if environ is None else environ
    api = _hub(env, endpoint, hf_token, model_repo, dry_run=dry_run)
    entries = _pinned(entries, api, allow_partial=allow_partial, model_revision=model_revision)
    if not entries:
        raise SubmitError("no entries to submit")
    if dry_run:
        files, unread = _dry_run_files(
            api, model_repo, entries, replace=replace, base=dict(base or {})
        )
        return Submission(files=files, unread=unread)
    assert api is not None  # offline, `_hub` refused it
    assert issuer_url is not None  # and `_refuse_options` no issuer
    credential = ci_credential(
        env,
        lambda: audience or issuer_audience(issuer_url),
        hub_variable=hub_identity,
        whoami=lambda token: _whoami(api, token),
    )
    tokens = request_tokens(
        issuer_url, credential, model_repo=model_repo, entries=entries, framework=framework
    )
    by_file: dict[str, list[dict[str, Any]]] = {}
    for entry, token in zip(entries, tokens, strict=True):
        path = f".eval_results/{benchmark_file_stem(str(token['benchmark']))}.yaml"
        by_file.setdefault(path, []).append({**entry, _token_key(entry): token["verify_token"]})
    files = {
        path: merge_results(
            read_main_file(api, model_repo, path), signed, path=path, replace=replace
        )
        for path, signed in by_file.items()
    }
    jtis = [str(token["jti"]) for token in tokens]
    results = [
        (str(token["benchmark"]), str(token["task_id"]), str(entry.get("notes", "")))
        for entry, token in zip(entries, tokens, strict=True)
    ]
    tasks: dict[str, list[str]] = {}
    for benchmark, task_id, _notes in sorted(results):
        if task_id not in tasks.setdefault(benchmark, []):
            tasks[benchmark].append(task_id)
    pull = open_or_update(
        api,
        model_repo,
        files,
        title=_title(tasks, framework),
        description=_description(files, len(entries), framework),
        key=submission_key(model_repo, results, pr_key),
        legacy_title=_legacy_title(sorted(tasks), framework),
    )
    return Submission(
        files=files, pr_url=pull.url, pr_num=pull.num, updated=pull.updated, jtis=jtis
    )
