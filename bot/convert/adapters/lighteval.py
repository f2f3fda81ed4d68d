"""lighteval `results_<date>.json` (`lighteval/logging/evaluation_tracker.py`); the names and
fields read: docs/convert.md, "Formats"."""

from __future__ import annotations

from typing import Any, ClassVar

from bot.convert.adapters._common import (
    hub_id,
    is_uncertainty,
    iso_from_filename,
    mapping,
    not_a_number,
    number,
    sha40,
    text,
    version_text,
)
from bot.convert.model import LeftOut, Run, Scale, Score
from bot.convert.registry import ConvertError, adapter

FRACTION_METRICS = frozenset(
    {"acc", "acc_norm", "em", "qem", "pem", "pqem", "exact_match", "f1", "mc1", "mc2"}
)


@adapter
class LightevalAdapter:
    name: ClassVar[str] = "lighteval"
    description: ClassVar[str] = "lighteval results_*.json"

    def sniff(self, filename: str, content: bytes, data: Any) -> bool:
        return (
            isinstance(data, dict)
            and isinstance(data.get("config_general"), dict)
            and isinstance(data.get("results"), dict)
        )

    def read(self, filename: str, content: bytes, data: Any) -> list[Run]:
        if not self.sniff(filename, content, data):
            raise ConvertError(f"{filename}: not a lighteval results file (no `config_general`)")
        general = data["config_general"]
        model_config = mapping(general.get("model_config"))
        run = Run(
            framework=self.name,
            model=text(general.get("model_name")) or text(model_config.get("model_name")),
            model_revision=sha40(general.get("model_sha")) or sha40(model_config.get("revision")),
            date=iso_from_filename(filename),
        )
        limit = general.get("max_samples")
        if isinstance(limit, int) and not isinstance(limit, bool):
            run.problems.append(
                f"max_samples is {limit}: tasks ran on at most {limit} samples, not the full set"
            )
        configs = mapping(data.get("config_tasks"))
        versions = mapping(data.get("versions"))
        for task, values in data["results"].items():
            if task == "all" or not isinstance(values, dict):
                continue
            config = mapping(configs.get(task))
            docs = config.get("effective_num_docs")
            version = version_text(versions.get(task, config.get("version")))
            # what the task read, the same for each of its metrics
            samples = docs if isinstance(docs, int) and docs > 0 else None
            dataset_id, revision = hub_id(config.get("hf_repo")), text(config.get("hf_revision"))
            subset, split = text(config.get("hf_subset")), _split(config.get("evaluation_splits"))
            for metric, raw in values.items():
                if is_uncertainty(metric):
                    continue
                value = number(raw)
                if value is None:
                    run.left_out.append(LeftOut(task, metric, not_a_number(raw)))
                    continue
                stderr = number(values.get(f"{metric}_stderr"))
                scale: Scale | None = "fraction" if metric in FRACTION_METRICS else None
                run.scores.append(
                    Score(
                        task=task,
                        metric=metric,
                        value=value,
                        scale=scale,
                        stderr=float(stderr) if stderr is not None else None,
                        num_samples=samples,
                        dataset_id=dataset_id,
                        dataset_revision=revision,
                        dataset_config=subset,
                        dataset_split=split,
                        task_version=version,
                    )
                )
        if not run.scores:
            run.problems.append("the file holds no numeric score")
        return [run]


def _split(splits: object) -> str | None:
    """The one split a task was scored on (`evaluation_splits: ["train"]`), else None."""
    if isinstance(splits, list | tuple) and len(splits) == 1:
        return text(splits[0])
    return None
