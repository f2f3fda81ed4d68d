"""A record and its samples laid out as an EEE datastore holds them, as EEE's
`publish_evaluation_logs` writes them (`evalbot convert --to eee`;
docs/convert.md#every-eval-ever). Pure."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any

from bot.eee import paths
from bot.eee.dedupe import normalized_hash

DETAIL = "detailed_evaluation_results"


class LayoutError(ValueError):
    """The record names no datastore folder (the message says which field, and why)."""


@dataclass(frozen=True, slots=True)
class Laid:
    """One record's files: `folder` is `data/<collection>/<developer>/<model>`."""

    folder: str
    uuid: str
    record: bytes
    samples: bytes | None = None

    @property
    def path(self) -> str:
        return f"{self.folder}/{self.uuid}.json"

    @property
    def samples_path(self) -> str:
        return f"{self.folder}/{self.uuid}{paths.SAMPLES_SUFFIX}"


def folder_of(record: dict[str, Any], collection: str | None = None) -> str:
    """`data/<collection>/<developer>/<model>` of `record`: `collection` when given (a folder
    name, checked), else the one its first result's `source_data.dataset_name` names."""
    if collection is not None:
        problem = paths.folder_problem(collection) if collection.strip() else "is empty"
        if problem is None and ("/" in collection or collection in (".", "..")):
            problem = "is not a single folder name"
        if problem is not None:
            raise LayoutError(f"the collection `{collection}` {problem}")
        chosen = collection
    else:
        derived, why = paths.collection_of(record)
        if derived is None:
            raise LayoutError(f"{why}; name the collection with --collection")
        chosen = derived
    named = paths.identity(record)
    if named is None:
        raise LayoutError("`model_info.id` is not a string")
    if named.problem is not None:
        raise LayoutError(f"{named.problem}, so the record names no datastore folder")
    return f"data/{chosen}/{named.developer}/{named.model}"


#: What `metric_config` takes from the benchmark's eval.yaml rather than from the results.
BENCHMARK_DERIVED = frozenset({"lower_is_better", "score_type", "min_score", "max_score"})


def same_evaluation(record: dict[str, Any]) -> str:
    """EEE's normalised hash of `record` without its samples pointer and without what each
    result's `metric_config` takes from the benchmark (docs/convert.md#every-eval-ever): the
    same for a record written again from the same results, whatever its uuid,
    `evaluation_id`, `retrieved_timestamp`, samples file name, or the benchmark's direction
    and bounds it was written with."""
    kept = {key: value for key, value in record.items() if key != DETAIL}
    results = kept.get("evaluation_results")
    if isinstance(results, list):
        kept["evaluation_results"] = [_results_own(result) for result in results]
    return normalized_hash(kept)


def _results_own(result: Any) -> Any:
    config = result.get("metric_config") if isinstance(result, dict) else None
    if not isinstance(config, dict):
        return result
    own = {key: value for key, value in config.items() if key not in BENCHMARK_DERIVED}
    return dict(result, metric_config=own)


def lay_out(
    record: dict[str, Any],
    rows: list[dict[str, Any]] | None,
    *,
    uuid: str,
    collection: str | None = None,
) -> Laid:
    """The record's files under `uuid` (a lower-case version-4 uuid): the record, and its
    samples file when `rows` are given (each row with its `evaluation_name`)."""
    folder = folder_of(record, collection)
    laid = dict(record)
    samples: bytes | None = None
    if rows:
        version = record["schema_version"]
        lines = []
        for row in rows:
            shaped = {
                "schema_version": version,
                "evaluation_id": record["evaluation_id"],
                "model_id": record["model_info"]["id"],
                **row,
            }
            if version == "0.2.0" and "messages" in shaped:  # 0.2.0 names them `interactions`
                shaped["interactions"] = shaped.pop("messages")
            lines.append(json.dumps(shaped, ensure_ascii=False, allow_nan=False))
        samples = ("\n".join(lines) + "\n").encode("utf-8")
        laid[DETAIL] = {
            "format": "jsonl",
            "file_path": f"{folder}/{uuid}{paths.SAMPLES_SUFFIX}",
            "hash_algorithm": "sha256",
            "checksum": hashlib.sha256(samples).hexdigest(),
            "total_rows": len(lines),
        }
    content = json.dumps(laid, indent=2, ensure_ascii=False, allow_nan=False) + "\n"
    return Laid(folder, uuid, content.encode("utf-8"), samples)
