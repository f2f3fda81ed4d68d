"""inspect-ai eval logs, `.json` and `.eval` archives (`inspect_ai/log/_log.py`); the names and
fields read: docs/convert.md, "Formats"."""

from __future__ import annotations

import io
import zipfile
from typing import Any, ClassVar

from bot.convert.adapters._common import (
    hub_id,
    is_uncertainty,
    iso_text,
    mapping,
    not_a_number,
    number,
    text,
    version_text,
)
from bot.convert.jsonread import read_json
from bot.convert.model import LeftOut, Run, Scale, Score
from bot.convert.registry import ConvertError, adapter
from bot.strictjson import TooDeep

HEADER = "header.json"
MAX_HEADER_BYTES = 16 * 1024 * 1024
#: Metrics inspect computes as proportions of correct samples.
FRACTION_METRICS = frozenset({"accuracy"})


@adapter
class InspectAdapter:
    name: ClassVar[str] = "inspect-ai"
    description: ClassVar[str] = "inspect-ai eval logs (.json, .eval)"

    def sniff(self, filename: str, content: bytes, data: Any) -> bool:
        if data is None and content[:4] == b"PK\x03\x04":
            return filename.endswith(".eval") or _has_header(content)
        return (
            isinstance(data, dict)
            and isinstance(data.get("eval"), dict)
            and "task" in data["eval"]
            and ("results" in data or "status" in data)
        )

    def read(self, filename: str, content: bytes, data: Any) -> list[Run]:
        if data is None and content[:4] == b"PK\x03\x04":
            data = _header(filename, content)
        if not isinstance(data, dict) or not isinstance(data.get("eval"), dict):
            raise ConvertError(f"{filename}: not an inspect-ai eval log (no `eval` mapping)")
        spec = data["eval"]
        stats = mapping(data.get("stats"))
        packages = mapping(spec.get("packages"))
        run = Run(
            framework=self.name,
            framework_version=text(packages.get("inspect_ai")),
            model=text(spec.get("model")),
            date=iso_text(stats.get("completed_at")) or iso_text(spec.get("created")),
        )
        task = text(spec.get("task")) or "unknown"
        status = text(data.get("status"))
        if status is not None and status != "success":
            error = mapping(data.get("error"))
            detail = text(error.get("message"))
            run.problems.append(
                f"the run's status is `{status}`" + (f": {detail[:200]}" if detail else "")
            )
        results = mapping(data.get("results"))
        total, completed = results.get("total_samples"), results.get("completed_samples")
        if isinstance(total, int) and isinstance(completed, int) and completed < total:
            run.problems.append(f"{completed} of {total} samples completed")
        dataset = mapping(spec.get("dataset"))
        dataset_id = hub_id(dataset.get("location"))
        version = version_text(spec.get("task_version"))
        for score in results.get("scores") or []:
            if isinstance(score, dict):
                run.scores.extend(_scores(task, score, dataset_id, version, run.left_out))
        if not run.scores:
            run.problems.append("the log holds no numeric score")
        return [run]


def _scores(
    task: str,
    score: dict[str, Any],
    dataset_id: str | None,
    version: str | None,
    left_out: list[LeftOut],
) -> list[Score]:
    name = text(score.get("name")) or text(score.get("scorer")) or "score"
    reducer = text(score.get("reducer"))
    prefix = name if reducer in (None, "mean") else f"{name}:{reducer}"
    metrics = mapping(score.get("metrics"))
    stderr = _value(metrics.get("stderr"))
    scored = score.get("scored_samples")
    found: list[Score] = []
    for metric_name, metric in metrics.items():
        if is_uncertainty(metric_name):
            continue
        value = _value(metric)
        if value is None:
            raw = metric.get("value") if isinstance(metric, dict) else metric
            left_out.append(LeftOut(task, f"{prefix}/{metric_name}", not_a_number(raw)))
            continue
        scale: Scale | None = "fraction" if metric_name in FRACTION_METRICS else None
        found.append(
            Score(
                task=task,
                metric=f"{prefix}/{metric_name}",
                value=value,
                scale=scale,
                stderr=float(stderr) if stderr is not None else None,
                num_samples=scored if isinstance(scored, int) else None,
                dataset_id=dataset_id,
                task_version=version,
            )
        )
    return found


def _value(metric: Any) -> float | int | None:
    return number(metric.get("value")) if isinstance(metric, dict) else None


def _has_header(content: bytes) -> bool:
    try:
        with zipfile.ZipFile(io.BytesIO(content)) as archive:
            return HEADER in archive.namelist()
    except zipfile.BadZipFile:
        return False


def _header(filename: str, content: bytes) -> Any:
    """The `header.json` member of an `.eval` archive, size-checked before it is read."""
    try:
        with zipfile.ZipFile(io.BytesIO(content)) as archive:
            try:
                info = archive.getinfo(HEADER)
            except KeyError as error:
                raise ConvertError(
                    f"{filename}: an .eval archive without {HEADER}; rewrite it with"
                    " `inspect log convert --to json` and convert the JSON log"
                ) from error
            if info.file_size > MAX_HEADER_BYTES:
                raise ConvertError(
                    f"{filename}: {HEADER} declares {info.file_size} bytes, over the"
                    f" {MAX_HEADER_BYTES}-byte cap"
                )
            with archive.open(info) as member:
                raw = member.read(MAX_HEADER_BYTES + 1)
    except zipfile.BadZipFile as error:
        raise ConvertError(f"{filename}: not a readable .eval (zip) archive: {error}") from error
    if len(raw) > MAX_HEADER_BYTES:
        raise ConvertError(f"{filename}: {HEADER} is over the {MAX_HEADER_BYTES}-byte cap")
    try:
        return read_json(raw, f"{filename}: {HEADER}")
    except TooDeep as error:
        raise ConvertError(f"{filename}: {HEADER} is not JSON: nested too deeply") from error
