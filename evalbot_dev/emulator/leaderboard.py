"""A benchmark's leaderboard, as `GET /api/datasets/{id}/leaderboard` answers it.

The shape is what `huggingface_hub` (2.4) parses into `DatasetLeaderboardEntry`: `rank`,
`modelId`, `value`, `filename`, `verified`, `source?` (`url`, `name`, `isExternal`), `author`
(`type` user or org, `name`), `pullRequest?`, `notes?`. Built from the state: every public
model repo's `.eval_results/*.yaml` on main, and the files each open PR changes (community
results show while the PR is open), entries whose `dataset.id` names the benchmark. A live
entry ranks by its `value`, a target entry by its value of the benchmark's primary metric,
best first (lowest first when that metric is lower-is-better). `verified` is always false: the
emulator does not verify tokens. Must be called with the state locked.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import yaml

from evalbot_dev.emulator.model import Repo
from evalbot_dev.emulator.state import HubState

_RESULTS = ".eval_results/"


def leaderboard(state: HubState, benchmark: Repo) -> list[dict[str, Any]]:
    primary, higher_is_better = _primary(state, benchmark)
    rows: list[dict[str, Any]] = []
    for repo in state.repos.values():
        if repo.type != "model" or repo.private or repo.main_sha is None:
            continue
        main = repo.commits[repo.main_sha].files
        sources: list[tuple[int | None, Mapping[str, str], set[str]]] = [(None, main, set(main))]
        for num, discussion in sorted(repo.discussions.items()):
            head = repo.pr_refs.get(num)
            if discussion.is_pull_request and discussion.status == "open" and head:
                files = repo.commits[head].files
                changed = {path for path, oid in files.items() if main.get(path) != oid}
                sources.append((num, files, changed))
        for pr, files, paths in sources:
            for path in sorted(paths):
                if (
                    not (path.startswith(_RESULTS) and path.endswith(".yaml"))
                    or "/" in path[len(_RESULTS) :]
                ):
                    continue
                for entry in _entries(repo.blobs.get(files[path], b"")):
                    row = _row(entry, benchmark, primary, repo, path=path, pr=pr)
                    if row is not None:
                        rows.append(row)
    rows.sort(key=lambda row: row["value"], reverse=higher_is_better)
    for rank, row in enumerate(rows, start=1):
        row["rank"] = rank
    return rows


def _primary(state: HubState, benchmark: Repo) -> tuple[str | None, bool]:
    if benchmark.main_sha is None:
        return None, True
    oid = benchmark.commits[benchmark.main_sha].files.get("eval.yaml")
    data = _load(benchmark.blobs.get(oid, b"")) if oid else None
    metrics = data.get("metrics") if isinstance(data, dict) else None
    if not isinstance(metrics, list) or not metrics:
        return None, True
    chosen = next(
        (m for m in metrics if isinstance(m, dict) and m.get("primary") is True),
        metrics[0] if len(metrics) == 1 else None,
    )
    if not isinstance(chosen, dict):
        return None, True
    return str(chosen.get("id")), chosen.get("higher_is_better") is not False


def _load(content: bytes) -> Any:
    try:
        return yaml.safe_load(content)
    except yaml.YAMLError:
        return None


def _entries(content: bytes) -> list[dict[str, Any]]:
    data = _load(content)
    return [item for item in data if isinstance(item, dict)] if isinstance(data, list) else []


def _row(
    entry: dict[str, Any],
    benchmark: Repo,
    primary: str | None,
    repo: Repo,
    *,
    path: str,
    pr: int | None,
) -> dict[str, Any] | None:
    dataset = entry.get("dataset")
    if not isinstance(dataset, dict) or not isinstance(dataset.get("id"), str):
        return None
    if dataset["id"].lower() != benchmark.full_name.lower():
        return None
    value = entry.get("value")
    if value is None and primary is not None:
        value = next(
            (
                m.get("value")
                for m in entry.get("metrics") or ()
                if isinstance(m, dict) and m.get("metric_id") == primary
            ),
            None,
        )
    if not isinstance(value, int | float) or isinstance(value, bool):
        return None
    row: dict[str, Any] = {
        "modelId": repo.full_name,
        "value": value,
        "filename": path,
        "verified": False,
        "author": {"type": "user", "name": repo.namespace},
    }
    source = entry.get("source")
    if isinstance(source, dict) and isinstance(source.get("url"), str):
        row["source"] = {"url": source["url"], "name": source.get("name"), "isExternal": True}
    if pr is not None:
        row["pullRequest"] = pr
    if isinstance(entry.get("notes"), str):
        row["notes"] = entry["notes"]
    return row
