"""Evidence before names: the dataset, config and split an output records, checked against the
mapping row that names the score's task, and used to complete suggested rows
(docs/convert.md, "Evidence before names"). Pure."""

from __future__ import annotations

from bot.convert.mapping import Fields, Mapping
from bot.convert.model import Score
from bot.validation.model import Benchmark, MetricDef, TaskDef

#: the config name datasets with a single config use; a task that names no config reads it
_DEFAULT_CONFIG = "default"


def _config(value: str | None) -> str:
    return _DEFAULT_CONFIG if value is None else value


def disagreement(
    score: Score, mapping: Mapping, benchmark: Benchmark | None, framework_version: str | None
) -> str | None:
    """Why the output's recorded dataset contradicts `mapping`, or None when nothing does.
    A dataset the row names among its `former_datasets` agrees when the run's framework
    version (`framework_version`, None when the output records none) is one that recorded it."""
    expected = mapping.dataset or mapping.benchmark
    found: list[str] = []
    if score.dataset_id is not None and score.dataset_id.lower() != expected.lower():
        former = next(
            (
                item
                for item in mapping.former_datasets
                if item.dataset.lower() == score.dataset_id.lower()
            ),
            None,
        )
        if former is None:
            found.append(f"dataset `{score.dataset_id}`, not `{expected}`")
        elif not former.recorded_by(framework_version):
            found.append(
                f"dataset `{score.dataset_id}` with {mapping.framework} {framework_version},"
                f" while the row accepts that former home of `{expected}` only from"
                f" {mapping.framework} {former.versions}"
            )
    recorded = score.dataset_config is not None or score.dataset_split is not None
    task = benchmark.task(mapping.task_id) if benchmark is not None and recorded else None
    if task is not None:
        if (
            score.dataset_config is not None
            and task.config is not None
            and _config(score.dataset_config) != _config(task.config)
        ):
            found.append(f"config `{score.dataset_config}`, not `{task.config}`")
        if (
            score.dataset_split is not None
            and task.split is not None
            and score.dataset_split != task.split
        ):
            found.append(f"split `{score.dataset_split}`, not `{task.split}`")
    if not found:
        return None
    return (
        f"{mapping.framework} task `{score.task}` metric `{score.metric}`: the output says it"
        f" ran on {'; '.join(found)} as the row at {mapping.file}:{mapping.line} maps it"
        f" ({mapping.benchmark} task `{mapping.task_id}`): the row is for another dataset,"
        " config or split; fix the row (a framework release may have changed the task)"
    )


def matching_tasks(score: Score, benchmark: Benchmark) -> list[TaskDef]:
    """The benchmark's tasks the score's recorded config and split agree with; every task
    when the output records neither (then the evidence does not single one out)."""
    if score.dataset_config is None and score.dataset_split is None:
        return list(benchmark.tasks)
    return [
        task
        for task in benchmark.tasks
        if (
            score.dataset_config is None
            or task.config is None
            or _config(score.dataset_config) == _config(task.config)
        )
        and (score.dataset_split is None or task.split is None or score.dataset_split == task.split)
    ]


def suggested_fields(framework: str, score: Score, benchmark: Benchmark) -> Fields:
    """The row to add for `score`, filled from the evidence as far as it goes: the benchmark
    always, the task when exactly one agrees, the metric when the benchmark declares one of
    the score's name, the scale from the metric's bounds (0-100 otherwise, what the Hub's
    benchmark files hold); None where nothing can be known."""
    tasks = matching_tasks(score, benchmark)
    fields: Fields = [
        ("framework", framework),
        ("task", score.task),
        ("metric", score.metric),
        ("benchmark", benchmark.repo_id),
        ("task_id", tasks[0].id if len(tasks) == 1 else None),
    ]
    metric = _metric(score, benchmark)
    if benchmark.metrics:
        fields.append(("metric_id", metric.id if metric else None))
    top = metric.max_score if metric is not None else None
    fields.append(("scale", "fraction" if top == 1 else "percent"))
    if score.scale is None:
        fields.append(("source_scale", None))
    return fields


def _metric(score: Score, benchmark: Benchmark) -> MetricDef | None:
    name = score.metric.partition(",")[0].rsplit("/", 1)[-1]
    found = benchmark.metric(name)
    if found is not None:
        return found
    return benchmark.primary_metric if len(benchmark.metrics) == 1 else None
