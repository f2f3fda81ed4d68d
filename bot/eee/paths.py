"""The datastore's path rule (EEE's `check_path_structure`), and the folders a record belongs in
(EEE's `datastore_path_components`) (docs/eee.md, "What a submission is checked for")."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

SAMPLES_SUFFIX = "_samples.jsonl"
_UUID4 = r"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}"
_AGGREGATE_NAME = re.compile(rf"({_UUID4})\.json")
_SAMPLES_NAME = re.compile(rf"({_UUID4})_samples\.jsonl")
_UNPORTABLE = re.compile(r'[<>:"\\|?*\x00-\x1f\x7f]')
_RESERVED = {"CON", "PRN", "AUX", "NUL"} | {f"{p}{i}" for p in ("COM", "LPT") for i in range(1, 10)}
_PARTS = 5


def is_samples(path: str) -> bool:
    return path.endswith(SAMPLES_SUFFIX)


def is_datastore_file(path: str) -> bool:
    """A file the datastore's checks read: a `.json` record or a `_samples.jsonl` file."""
    return path.endswith(".json") or is_samples(path)


def samples_path(aggregate_path: str) -> str:
    """The one samples file an aggregate may have: same folder, same uuid."""
    return aggregate_path[: -len(".json")] + SAMPLES_SUFFIX


def aggregate_path(samples: str) -> str:
    return samples[: -len(SAMPLES_SUFFIX)] + ".json"


def path_problem(path: str) -> str | None:
    """What breaks the path rule, in one sentence; None for a good path."""
    parts = path.split("/")
    if path.startswith("/") or "\\" in path or any(p in ("", ".", "..") for p in parts):
        return f"`{_shown(path)}` has an empty, `.` or `..` part, or a backslash"
    if len(parts) != _PARTS:
        return (
            f"`{_shown(path)}` has {len(parts)} parts; a datastore file has 5:"
            " `data/<collection>/<developer>/<model>/<file>`"
        )
    if parts[0] != "data":
        return f"`{_shown(path)}` is not under `data/`"
    for part in parts[1:4]:
        problem = folder_problem(part)
        if problem is not None:
            return f"the folder `{_shown(part)}` {problem}"
    name = parts[4]
    if not (_AGGREGATE_NAME.fullmatch(name) or _SAMPLES_NAME.fullmatch(name)):
        return (
            f"the file name `{_shown(name)}` is not `<uuid4>.json` or `<uuid4>_samples.jsonl`"
            " (a lower-case version-4 uuid)"
        )
    return None


def folder_problem(part: str) -> str | None:
    """Why one collection, developer or model folder name is not portable; None if it is."""
    if part == "data":
        return "uses the reserved name `data`"
    if _UNPORTABLE.search(part):
        return 'has a character some file systems refuse (`<>:"\\|?*` or a control character)'
    if part.endswith((".", " ")):
        return "ends with a dot or a space"
    if part.split(".", 1)[0].upper() in _RESERVED:
        return "is a Windows device name"
    return None


@dataclass(frozen=True, slots=True)
class Identity:
    """The developer and model folders `model_info` names (`developer`/`model`), or why it
    names none (`problem`, about `field`)."""

    developer: str | None
    model: str | None
    problem: str | None = None
    field: str = "model_info.id"

    @property
    def folders(self) -> tuple[str | None, str | None]:
        return self.developer, self.model


def identity(record: dict[str, Any]) -> Identity | None:
    """The folders EEE's publisher (`datastore_path_components`) files `record` under; None
    when `model_info`, its `id` or a flat id's `developer` is not what the schema asks for:
    that is the schema's finding, not a folder's."""
    info = record.get("model_info")
    model_id = info.get("id") if isinstance(info, dict) else None
    if not isinstance(info, dict) or not isinstance(model_id, str):
        return None
    parts = model_id.strip().split("/")
    if not model_id.strip() or any(not part.strip() for part in parts):
        return Identity(None, None, f"`model_info.id` {_quoted(model_id)} has an empty part")
    if len(parts) >= 2:
        named = [("its developer part", parts[0])] + [("its model part", p) for p in parts[1:]]
        problem = next((p for what, part in named if (p := _component_problem(part, what))), None)
        if problem is not None:
            return Identity(None, None, f"`model_info.id` {_quoted(model_id)}: {problem}")
        developer = _component(parts[0])
        model = _flatten("/".join(parts[1:]))
        return Identity(developer, model)
    raw = info.get("developer")
    if raw is not None and not isinstance(raw, str):
        return None  # a flat id reads `developer`, whose type the schema checks
    if raw is None:
        return Identity(
            None,
            None,
            f"`model_info.id` {_quoted(model_id)} has no `developer/` part and"
            " `model_info.developer` is missing",
            "model_info.developer",
        )
    problem = _component_problem(raw, "`model_info.developer`")
    if problem is not None:
        return Identity(None, None, problem, "model_info.developer")
    problem = _component_problem(parts[0], "`model_info.id`")
    if problem is not None:
        return Identity(None, None, problem)
    return Identity(_component(raw), _component(parts[0]))


def collection_of(record: dict[str, Any]) -> tuple[str | None, str | None]:
    """(the collection folder EEE's publisher derives, the first result's
    `source_data.dataset_name` flattened; why it names none)."""
    results = record.get("evaluation_results")
    first = results[0] if isinstance(results, list) and results else None
    source = first.get("source_data") if isinstance(first, dict) else None
    dataset = source.get("dataset_name") if isinstance(source, dict) else None
    collection = _flatten(dataset)
    if collection is None:
        return None, f"`{COLLECTION_FIELD}` {_quoted(dataset)} cannot name a folder"
    return collection, None


COLLECTION_FIELD = "evaluation_results[0].source_data.dataset_name"


def folders(path: str) -> tuple[str, str, str] | None:
    """The collection, developer and model folders of a path that follows the rule."""
    parts = path.split("/")
    if len(parts) != _PARTS or parts[0] != "data":
        return None
    return parts[1], parts[2], parts[3]


def _component(value: str | None) -> str | None:
    if not isinstance(value, str) or _component_problem(value, "") is not None:
        return None
    return value.strip().replace(":", "_")


def _component_problem(value: str, what: str) -> str | None:
    """Why `value` cannot be one folder of a datastore path (EEE's `_required_path_component`:
    stripped, `:` as `_`), said of `what`; None when it can."""
    cleaned = value.strip().replace(":", "_")
    if not cleaned:
        return f"{what} is empty"
    if cleaned.lower() == "unknown":
        return f"{what} is the placeholder `unknown`"
    if cleaned in (".", "..") or "/" in cleaned:
        return f"{what} {_quoted(value)} is not a single folder name"
    problem = folder_problem(cleaned)
    if problem is not None:
        return f"{what} {_quoted(value)} {problem}"
    return None


def _flatten(value: object) -> str | None:
    if not isinstance(value, str) or not value.strip():
        return None
    parts = value.strip().split("/")
    if any(not part for part in parts):
        return None
    flat = [_component(part) for part in parts]
    if any(part is None for part in flat):
        return None
    return "_".join(part for part in flat if part is not None)


def _quoted(value: object) -> str:
    text = value if isinstance(value, str) else repr(value)
    return "`" + _shown(text.replace("`", "'"), 80) + "`"


def _shown(text: str, limit: int = 120) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
