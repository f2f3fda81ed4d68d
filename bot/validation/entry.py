"""One results entry alone, in either dialect (docs/decisions.md#dialects): its shape, types and
formats, read as a `ResultEntry`. One job over 500 lines: every field's rule, in one checker."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from bot.validation import diagnostics
from bot.validation.diagnostics import (
    TOKEN_SPELLINGS,
    Diagnostic,
    Fix,
    suggestion_suffix,
    unique_match,
)
from bot.validation.model import (
    Dialect,
    ResultEntry,
    is_finite_number,
    is_http_url,
    is_iso8601,
    is_number,
    is_repo_id,
    is_sha40,
)
from bot.validation.positions import Locator, Path, Position, dotted
from bot.validation.yaml11 import describe, is_ambiguous, same_value, yaml11_reading
from bot.validation.yamlload import LoadedYaml, NumberTooLong, resolve_plain

# Known keys per mapping; `None` means free-form below that key (not checked further).
ENTRY_KEYS = frozenset(
    {
        "dataset",
        "value",
        "metrics",
        "verifyToken",
        "verify_token",
        "date",
        "source",
        "notes",
        "framework",
        "model_revision",
        "evaluation_framework",
        "inference_engine",
        "generation_config",
        "run",
        "artifacts",
        "runtime_context",
    }
)
DATASET_KEYS = frozenset({"id", "task_id", "revision", "config", "split"})
SOURCE_KEYS = frozenset(
    {
        "url",
        "name",
        "user",
        "org",
        "type",
        "organization_name",
        "organization_url",
        "evaluator_relationship",
    }
)
FRAMEWORK_KEYS = frozenset({"name", "version", "command"})
METRIC_KEYS = frozenset({"metric_id", "value", "value_type", "slice", "unit"})
RUN_KEYS = frozenset(
    {
        "framework_version",
        "adapter_version",
        "dataset_revision",
        "code_revision",
        "seed",
        "num_samples",
        "batch_size",
    }
)
INFERENCE_ENGINE_KEYS = frozenset({"name", "version"})
GENERATION_CONFIG_KEYS = frozenset({"generation_args", "additional_details"})
VALUE_TYPES = ("float", "int", "percentage", "rank")
TOKEN_KEYS = TOKEN_SPELLINGS


@dataclass(slots=True)
class ItemPositions:
    """What the loader recorded about one list item, keyed by paths relative to the item."""

    positions: dict[Path, Position] = field(default_factory=dict)
    ambiguous: dict[Path, str] = field(default_factory=dict)
    hexadecimal: dict[Path, str] = field(default_factory=dict)


def split_by_item(loaded: LoadedYaml, count: int) -> list[ItemPositions]:
    """Split a top-level list's position maps per item, in one pass over each map."""
    items = [ItemPositions() for _ in range(count)]
    for source, attribute in (
        (loaded.positions, "positions"),
        (loaded.ambiguous, "ambiguous"),
        (loaded.hexadecimal, "hexadecimal"),
    ):
        for path, value in source.items():
            if path and isinstance(path[0], int) and path[0] < count:
                getattr(items[path[0]], attribute)[path[1:]] = value
    return items


def read_entry(index: int, data: Any, item: ItemPositions) -> tuple[ResultEntry, list[Diagnostic]]:
    """Build the `ResultEntry` for list item `index` and check everything local to it."""
    line = item.positions.get((), (0, 0))[0]
    checker = _EntryChecker(Locator(item.positions))
    if not isinstance(data, dict):
        checker.report("ENTRY-NOT-MAPPING", (), kind=diagnostics.kind_of(data))
        entry = ResultEntry(index=index, line=line, data={}, dialect=Dialect.LIVE)
        return entry, checker.diagnostics
    dialect = checker.check(data)
    for path, text in item.ambiguous.items():
        checker.ambiguity(path, text, _value_at(data, path))
    for path, text in item.hexadecimal.items():
        value = int(text, 16)
        checker.report(
            "ENTRY-NUMBER-NOTATION",
            path,
            text=text,
            value=value,
            fix=Fix("rewrite", value, path, text=str(value)),
        )
    dataset = data.get("dataset")
    dataset_id = task_id = None
    if isinstance(dataset, dict):
        dataset_id = dataset.get("id") if isinstance(dataset.get("id"), str) else None
        task_id = dataset.get("task_id") if isinstance(dataset.get("task_id"), str) else None
    token = next((data[key] for key in TOKEN_KEYS if isinstance(data.get(key), str)), None)
    entry = ResultEntry(
        index=index,
        line=line,
        data=data,
        dialect=dialect,
        dataset_id=dataset_id,
        task_id=task_id,
        token=token,
        lines={dotted(path): position[0] for path, position in item.positions.items() if path},
        ambiguous_fields=frozenset(dotted(path) for path in item.ambiguous),
    )
    return entry, checker.diagnostics


class _EntryChecker:
    def __init__(self, where: Locator) -> None:
        self.where = where
        self.diagnostics: list[Diagnostic] = []

    def report(self, code: str, path: Path, *, fix: Fix | None = None, **params: object) -> None:
        self.diagnostics.append(self.where.diagnostic(code, path, fix=fix, **params))

    # --- typed field readers ---------------------------------------------------------------

    def mapping(
        self, data: dict[str, Any], path: Path, keys: frozenset[str] | None
    ) -> dict[str, Any] | None:
        key = str(path[-1])
        value = data.get(key)
        if value is None and key not in data:
            return None
        if not isinstance(value, dict):
            self.type_error(path, value, "a mapping", "indent its fields under it")
            return None
        if keys is not None:
            self.unknown_keys(value, path, keys)
        return value

    def string(
        self, data: dict[str, Any], path: Path, *, required: bool = False, hint: str = ""
    ) -> str | None:
        key = path[-1]
        if key not in data:
            if required:
                self.report("ENTRY-FIELD-MISSING", path, hint=hint or f"add `{dotted(path)}`")
            return None
        value = data[key]
        if not isinstance(value, str):
            self.type_error(path, value, "a string", _quote_hint(value))
            return None
        return value

    def type_error(self, path: Path, value: Any, expected: str, hint: str) -> None:
        self.report(
            "ENTRY-FIELD-TYPE", path, expected=expected, kind=diagnostics.kind_of(value), hint=hint
        )

    def unknown_keys(self, mapping: dict[str, Any], path: Path, known: frozenset[str]) -> None:
        for key in mapping:
            if key not in known:
                self.report(
                    "ENTRY-FIELD-UNKNOWN",
                    (*path, key),
                    suggestion=suggestion_suffix(key, known),
                    fix=_key_fix(mapping, path, key, known),
                )

    def revision(self, data: dict[str, Any], path: Path) -> None:
        value = self.string(data, path)
        if value is not None and not is_sha40(value):
            self.report("ENTRY-REVISION", path, value=diagnostics.shown(value))

    def url(self, data: dict[str, Any], path: Path) -> None:
        value = self.string(data, path)
        if value is not None and not is_http_url(value):
            self.report("ENTRY-URL", path, value=diagnostics.shown(value))

    def integer(self, data: dict[str, Any], path: Path, *, minimum: int) -> None:
        if path[-1] not in data:
            return
        value = data[path[-1]]
        if not isinstance(value, int) or isinstance(value, bool) or value < minimum:
            expected = "a non-negative integer" if minimum == 0 else "a positive integer"
            self.type_error(path, value, expected, "write a whole number, unquoted")

    # --- the entry -------------------------------------------------------------------------

    def check(self, data: dict[str, Any]) -> Dialect:
        self.unknown_keys(data, (), ENTRY_KEYS)
        self.dataset(data)
        dialect = self.scores(data)
        self.framework(data)
        self.revision(data, ("model_revision",))
        self.tokens(data)
        date = self.string(data, ("date",))
        if date is not None and not is_iso8601(date):
            self.report("ENTRY-DATE", ("date",), value=diagnostics.shown(date))
        self.source(data)
        self.string(data, ("notes",))
        self.string(data, ("evaluation_framework",))
        engine = self.mapping(data, ("inference_engine",), INFERENCE_ENGINE_KEYS)
        if engine is not None:
            self.string(engine, ("inference_engine", "name"))
            self.string(engine, ("inference_engine", "version"))
        generation = self.mapping(data, ("generation_config",), GENERATION_CONFIG_KEYS)
        if generation is not None:
            self.mapping(generation, ("generation_config", "generation_args"), None)
            self.mapping(generation, ("generation_config", "additional_details"), None)
        self.run(data)
        self.mapping(data, ("runtime_context",), None)
        if "artifacts" in data and not isinstance(data["artifacts"], list | dict):
            self.type_error(
                ("artifacts",), data["artifacts"], "a list or a mapping", "list URLs and hashes"
            )
        return dialect

    def dataset(self, data: dict[str, Any]) -> None:
        if "dataset" not in data:
            self.report(
                "ENTRY-FIELD-MISSING",
                ("dataset",),
                hint="add `dataset:` with `id:` (the benchmark) and `task_id:`",
            )
            return
        dataset = self.mapping(data, ("dataset",), DATASET_KEYS)
        if dataset is None:
            return
        dataset_id = self.string(
            dataset,
            ("dataset", "id"),
            required=True,
            hint="add `id:` under `dataset:`, the benchmark's Hub id, e.g. `Idavidrein/gpqa`",
        )
        if dataset_id is not None and not is_repo_id(dataset_id):
            self.report("ENTRY-DATASET-ID", ("dataset", "id"), value=diagnostics.shown(dataset_id))
        self.string(
            dataset,
            ("dataset", "task_id"),
            required=True,
            hint="add `task_id:` under `dataset:`, one of the tasks in the benchmark's eval.yaml",
        )
        self.revision(dataset, ("dataset", "revision"))
        self.string(dataset, ("dataset", "config"))
        self.string(dataset, ("dataset", "split"))

    def scores(self, data: dict[str, Any]) -> Dialect:
        has_value = "value" in data
        has_metrics = "metrics" in data
        if has_value and has_metrics:
            self.report("ENTRY-DIALECT-MIXED", ("metrics",))
            return Dialect.TARGET
        if has_value:
            self.score(data["value"], ("value",))
            return Dialect.LIVE
        if not has_metrics:
            self.report("ENTRY-VALUE-MISSING", ())
            return Dialect.LIVE
        metrics = data["metrics"]
        if not isinstance(metrics, list):
            self.type_error(
                ("metrics",), metrics, "a list", "write `- metric_id: ...` items under `metrics:`"
            )
            return Dialect.TARGET
        if not metrics:
            self.report("ENTRY-METRICS-EMPTY", ("metrics",))
        seen: set[tuple[str, Any]] = set()
        for position, item in enumerate(metrics):
            path: Path = ("metrics", position)
            if not isinstance(item, dict):
                self.type_error(
                    path, item, "a mapping", "write `- metric_id: ...` and `value: ...`"
                )
                continue
            self.unknown_keys(item, path, METRIC_KEYS)
            metric_id = self.string(
                item,
                (*path, "metric_id"),
                required=True,
                hint="add `metric_id:`, one of the metrics in the benchmark's eval.yaml",
            )
            if "value" not in item:
                self.report("ENTRY-FIELD-MISSING", (*path, "value"), hint="add `value: <score>`")
            elif self.score(item["value"], (*path, "value")):
                self.value_type(item, path)
            self.string(item, (*path, "slice"))
            self.string(item, (*path, "unit"))
            if metric_id is not None:
                key = (metric_id, item.get("slice"))
                if key in seen:
                    self.report("ENTRY-METRIC-DUPLICATE", (*path, "metric_id"), metric_id=metric_id)
                seen.add(key)
        return Dialect.TARGET

    def score(self, value: Any, path: Path) -> bool:
        """A score is a finite int or float; True when it is one."""
        if not is_number(value):
            hint = "write the score as a plain number, e.g. `78.8`"
            fix: Fix | None = None
            if isinstance(value, str):
                try:
                    parsed = resolve_plain(value.strip())
                except ValueError:
                    parsed = value
                if is_number(parsed):
                    hint = "remove the quotes: the score must be a number, not a string"
                    if is_finite_number(parsed) and _DECIMAL.match(value.strip()):
                        fix = Fix("replace", parsed, path, text=value.strip())
            self.report(
                "ENTRY-VALUE-NOT-NUMBER", path, kind=diagnostics.kind_of(value), hint=hint, fix=fix
            )
            return False
        if not is_finite_number(value):
            self.report("ENTRY-VALUE-NOT-FINITE", path, value=diagnostics.shown(value))
            return False
        return True

    def value_type(self, item: dict[str, Any], path: Path) -> None:
        """`value_type` (target-spec extension): int is integral, rank a positive integer."""
        if "value_type" not in item:
            return
        value_type = self.string(item, (*path, "value_type"))
        if value_type is None:
            return
        value = item["value"]
        if value_type not in VALUE_TYPES:
            self.report(
                "ENTRY-VALUE-TYPE-UNKNOWN",
                (*path, "value_type"),
                value=diagnostics.shown(value_type),
                suggestion=suggestion_suffix(value_type, VALUE_TYPES),
            )
            return
        integral = float(value).is_integer()
        problem: tuple[str, str] | None = None
        if value_type == "int" and not integral:
            problem = ("an integer", "write a whole number, or use `value_type: float`")
        elif value_type == "rank" and not (integral and value >= 1):
            problem = ("a positive integer", "ranks start at 1")
        elif value_type == "percentage" and not 0 <= value <= 100:
            problem = ("a percentage between 0 and 100", "write the percentage, e.g. 41.2")
        if problem is not None:
            self.report(
                "ENTRY-VALUE-TYPE",
                (*path, "value"),
                value=diagnostics.shown(value),
                expected=problem[0],
                value_type=value_type,
                hint=problem[1],
            )

    def framework(self, data: dict[str, Any]) -> None:
        framework = self.mapping(data, ("framework",), FRAMEWORK_KEYS)
        if framework is None:
            return
        self.string(
            framework,
            ("framework", "name"),
            required=True,
            hint="add `name:` under `framework:`, e.g. `inspect-ai`",
        )
        self.string(framework, ("framework", "version"))
        self.string(framework, ("framework", "command"))

    def tokens(self, data: dict[str, Any]) -> None:
        present = [key for key in TOKEN_KEYS if key in data]
        if len(present) == 2:
            self.report("ENTRY-TOKEN-BOTH", ("verify_token",))
        for key in present:
            self.string(data, (key,))
        shapes = [shape for shape in ("value", "metrics") if shape in data]
        if len(present) == 1 and len(shapes) == 1:
            key, shape = present[0], shapes[0]
            dialect = Dialect.TARGET if shape == "metrics" else Dialect.LIVE
            expected = _TOKEN_KEY_OF[dialect]
            if key != expected:
                # huggingface_hub's `parse_eval_result_entries` reads only `verifyToken` beside
                # `value`; the target spec names it `verify_token` beside `metrics[]`.
                reader = "the Hub's client" if dialect is Dialect.LIVE else "the target spec"
                self.report(
                    "ENTRY-TOKEN-KEY",
                    (key,),
                    key=key,
                    shape=shape,
                    reader=reader,
                    expected=expected,
                    fix=Fix("rename-key", expected, (key,)),
                )

    def source(self, data: dict[str, Any]) -> None:
        source = self.mapping(data, ("source",), SOURCE_KEYS)
        if source is None:
            return
        if "url" not in source:
            self.report("ENTRY-SOURCE-URL-MISSING", ("source",))
        else:
            self.url(source, ("source", "url"))
        for key in ("name", "user", "org", "type", "organization_name", "evaluator_relationship"):
            self.string(source, ("source", key))
        self.url(source, ("source", "organization_url"))

    def run(self, data: dict[str, Any]) -> None:
        run = self.mapping(data, ("run",), RUN_KEYS)
        if run is None:
            return
        for key in ("framework_version", "adapter_version"):
            self.string(run, ("run", key))
        for key in ("dataset_revision", "code_revision"):
            self.revision(run, ("run", key))
        self.integer(run, ("run", "seed"), minimum=0)
        self.integer(run, ("run", "num_samples"), minimum=0)
        self.integer(run, ("run", "batch_size"), minimum=1)

    def ambiguity(self, path: Path, text: str, value: Any) -> None:
        """Warn about a plain scalar that YAML 1.1 readers take for another value. `value` is
        what the entry holds at `path` (the scalar, unless the ambiguous text is its key)."""
        try:
            ours = resolve_plain(text)  # keys are strings, and resolve so too (else: error)
        except ValueError:
            ours = text
        self.report(
            "ENTRY-YAML11-AMBIGUOUS",
            path,
            text=text,
            ours=describe(ours),
            theirs=describe(yaml11_reading(text)),
            quoted=f'"{text}"',
            fix=_unambiguous(ours, value, path),
        )


#: a number as people write a score, which every YAML reader reads as that number
_DECIMAL = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?\Z")


def _value_at(data: Any, path: Path) -> Any:
    """The value at `path` inside `data`, None when there is none."""
    for part in path:
        try:
            data = data[part]
        except (KeyError, IndexError, TypeError):
            return None
    return data


def _unambiguous(ours: Any, value: Any, path: Path) -> Fix | None:
    """The same value written so YAML 1.1 reads it too: a string quoted, a number in its plain
    decimal form (`012` as `12`); None when the ambiguous text is a key, or no such form is
    sure (a float whose shortest text YAML 1.1 reads otherwise)."""
    if not same_value(ours, value):
        return None  # the ambiguous scalar is the key, not the value at `path`
    if isinstance(ours, str):
        return Fix("rewrite", ours, path, text=json.dumps(ours, ensure_ascii=False))
    if isinstance(ours, bool) or not isinstance(ours, int | float):
        return None
    text = str(ours) if isinstance(ours, int) else repr(ours)
    try:
        if not same_value(resolve_plain(text), ours) or is_ambiguous(text, ours):
            return None
    except (ValueError, NumberTooLong):
        return None
    return Fix("rewrite", ours, path, text=text)


#: the spellings of the token key, by the dialect whose spelling each is
_TOKEN_KEY_OF = {Dialect.LIVE: "verifyToken", Dialect.TARGET: "verify_token"}


def _key_fix(mapping: dict[str, Any], path: Path, key: str, known: frozenset[str]) -> Fix | None:
    """The rename of an unknown key to the one known key it stands for: none when it could be
    several, when that key is there already, or when it would give an entry both `value` and
    `metrics`. A misspelt token key takes the spelling of the entry's dialect."""
    match = unique_match(key, sorted(known))
    if match is None and not path:
        close = set(diagnostics.close_matches(key, known))
        if close and close <= set(TOKEN_KEYS):
            dialect = Dialect.TARGET if "metrics" in mapping else Dialect.LIVE
            match = _TOKEN_KEY_OF[dialect]
    if match is None or match in mapping:
        return None
    if not path and {match, *mapping} >= {"value", "metrics"}:
        return None
    if not path and match in TOKEN_KEYS and any(token in mapping for token in TOKEN_KEYS):
        return None
    return Fix("rename-key", match, (*path, key))


def _quote_hint(value: Any) -> str:
    if isinstance(value, bool | int | float) or value is None:
        return "quote the value so it stays text"
    return "write a single text value"
