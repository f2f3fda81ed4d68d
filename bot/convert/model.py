"""What adapters read out of a framework's output before any mapping: `Run`s and their `Score`s,
named the framework's way; what the output does not record stays None, never invented."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

Scale = Literal["fraction", "percent"]
SCALES: tuple[Scale, ...] = ("fraction", "percent")


@dataclass(frozen=True, slots=True)
class Score:
    """One metric value of one task, as the framework names it.

    `scale` is what the framework's value is on, when the output or the framework's own
    convention says so (lm-eval accuracies are fractions); None when it cannot be known, and
    then the mapping must state it (`source_scale`).
    """

    task: str
    metric: str
    value: float
    scale: Scale | None = None
    stderr: float | None = None
    num_samples: int | None = None  # samples the value was computed on (effective)
    #: the version of the task definition the framework ran (lm-eval `versions[task]`), which
    #: entries carry as `run.adapter_version` (docs/convert.md#run-metadata)
    task_version: str | None = None
    higher_is_better: bool | None = None
    dataset_id: str | None = None  # the dataset the framework read, when it is a Hub id
    dataset_revision: str | None = None
    #: the dataset config (subset) and split the framework read, when the output records them:
    #: the evidence a mapping row is checked against (`bot.convert.evidence`)
    dataset_config: str | None = None
    dataset_split: str | None = None
    #: the task this one is a part of (an lm-eval group's subtask, an EvalScope subset): when
    #: the parent is converted, the part needs no row of its own and is not suggested one
    parent: str | None = None
    #: Hub coordinates the output itself declares (an EEE record written by evalbot does);
    #: they make a mapping unnecessary.
    declared: DeclaredTarget | None = None


@dataclass(frozen=True, slots=True)
class DeclaredTarget:
    """An entry's Hub fields that a record carries explicitly (round trips through EEE)."""

    dataset_id: str
    task_id: str
    metric_id: str | None = None
    notes: str | None = None
    model_revision: str | None = None
    source: dict[str, str] | None = None
    #: the entry's other `run` fields (all but `num_samples` and `adapter_version`, which
    #: travel on the score)
    run: dict[str, str | int] | None = None


@dataclass(frozen=True, slots=True)
class LeftOut:
    """A score the output names whose value cannot be converted (NaN, infinite, a text, or
    outside its scale): never dropped without a word, it is reported with `reason`."""

    task: str
    metric: str
    reason: str


@dataclass(slots=True)
class Run:
    """One run of one model by one framework; `problems` are findings about the output itself
    (a failed run, samples not completed) that the user must see, not errors of conversion."""

    framework: str | None  # as `framework.name` of entries; None when not recorded
    framework_version: str | None = None
    command: str | None = None
    model: str | None = None
    model_revision: str | None = None
    date: str | None = None  # ISO-8601, as recorded
    scores: list[Score] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    #: scores named in the output whose value is not a finite number
    left_out: list[LeftOut] = field(default_factory=list)
