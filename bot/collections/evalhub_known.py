"""The `--map` values evalbot's mapping table already knows for an EvalHub collection: one right
answer, or the candidates for a person to choose. Pure."""

from __future__ import annotations

from dataclasses import dataclass

from bot.collections.evalhub import HubTarget
from bot.convert.mapping import Mapping, MappingTable
from bot.validation.yamlload import load_yaml

#: EvalHub provider ids (eval-hub `config/providers/*.yaml`) -> evalbot's converter names.
#: Other providers (inspect's `inspect/...` ids, garak, ragas...) name their benchmarks in a
#: way no table row uses.
PROVIDERS = {"lm_evaluation_harness": "lm-eval", "lighteval": "lighteval"}


@dataclass(frozen=True, slots=True)
class Proposal:
    """What the table says of one EvalHub benchmark: `known` when it has exactly one answer."""

    evalhub_id: str
    known: HubTarget | None
    candidates: tuple[HubTarget, ...]  # every target the related rows give (known: just it)
    rows: tuple[str, ...]  # the rows it comes from, `file:line`
    note: str | None = None  # what a person should know before using it

    def flag(self, target: HubTarget | None = None) -> str:
        """The ready-to-paste option for `target` (default: the known one)."""
        chosen = target or self.known or self.candidates[0]
        return f"--map {self.evalhub_id}={chosen.text}"


def propose(content: bytes, table: MappingTable) -> dict[str, Proposal]:
    """A proposal for each benchmark of the EvalHub file the table has rows for, by EvalHub id.
    A file that cannot be read proposes nothing (the import reports why)."""
    loaded = load_yaml(content)
    data = loaded.data if loaded.ok else None
    items = data.get("benchmarks") if isinstance(data, dict) else None
    proposals: dict[str, Proposal] = {}
    for item in items if isinstance(items, list) else ():
        if not isinstance(item, dict) or not isinstance(item.get("id"), str):
            continue
        framework = PROVIDERS.get(str(item.get("provider_id")))
        if framework is None:
            continue
        primary = item.get("primary_score")
        metric = primary.get("metric") if isinstance(primary, dict) else None
        proposal = _proposal(item["id"], framework, metric, table)
        if proposal is not None:
            proposals[item["id"]] = proposal
    return proposals


def _proposal(
    evalhub_id: str, framework: str, metric: object, table: MappingTable
) -> Proposal | None:
    rows = [row for row in table.rows.values() if row.framework == framework]
    exact = [row for row in rows if row.task == evalhub_id]
    if exact:
        named = [row for row in exact if _metric_name(row) == metric]
        chosen = named or exact
        targets = _targets(chosen)
        note = None
        if not named and isinstance(metric, str):
            their = ", ".join(sorted({_metric_name(row) for row in exact}))
            note = (
                f"EvalHub's metric `{metric}` is not one the table maps for `{evalhub_id}` "
                f"({their}): the gate reads the Hub benchmark's own metric"
            )
        if len(targets) == 1:
            return Proposal(evalhub_id, targets[0], targets, _where(chosen), note)
        return Proposal(
            evalhub_id,
            None,
            targets,
            _where(chosen),
            f"the table maps `{evalhub_id}` to {len(targets)} targets: choose one",
        )
    members = [row for row in rows if row.task.startswith(evalhub_id + "_")]
    if not members:
        return None
    return Proposal(
        evalhub_id,
        None,
        _targets(members),
        _where(members),
        f"`{evalhub_id}` is not in the table, its tasks "
        f"({', '.join(sorted({row.task for row in members}))}) are: choose the one to gate on",
    )


def _metric_name(row: Mapping) -> str:
    """lm-eval's `acc_norm,none` is EvalHub's `acc_norm` (the part before the filter)."""
    return row.metric.split(",", 1)[0]


def _targets(rows: list[Mapping]) -> tuple[HubTarget, ...]:
    seen: dict[HubTarget, None] = {}
    for row in rows:
        seen.setdefault(HubTarget(row.benchmark, row.task_id, row.metric_id), None)
    return tuple(seen)


def _where(rows: list[Mapping]) -> tuple[str, ...]:
    return tuple(f"{row.file}:{row.line}" if row.line else row.file for row in rows)
