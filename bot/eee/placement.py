"""The folders a datastore record must be in, and the edits that must move it: `EEE-FOLDER` and
`EEE-MOVED-IDENTITY` (docs/eee.md, "What a submission is checked for"). Pure."""

from __future__ import annotations

from typing import Any, Literal

from bot.eee import datastore_diagnostics, paths
from bot.validation.diagnostics import Diagnostic, shown

#: "any": the datastore's maintainers name collections; "source": the collection folder must be
#: the first result's `source_data.dataset_name` (`bot.eee.submission.DatastorePolicy`).
CollectionRule = Literal["source", "any"]


def identity_key(record: dict[str, Any], rule: CollectionRule) -> tuple[object, ...]:
    named = paths.collection_of(record) if rule == "source" else None
    return (named, paths.identity(record))


def _expected(
    actual: tuple[str, str, str], record: dict[str, Any], rule: CollectionRule
) -> tuple[str, str, str]:
    """The folders the record belongs in, each part taken from `actual` where the record
    names none (or, with `collection: any`, for the collection)."""
    collection = actual[0]
    if rule == "source":
        collection = paths.collection_of(record)[0] or collection
    named = paths.identity(record)
    developer = named.developer if named is not None and named.developer else actual[1]
    model = named.model if named is not None and named.model else actual[2]
    return collection, developer, model


def folder_problems(
    actual: tuple[str, str, str], record: dict[str, Any], rule: CollectionRule
) -> list[Diagnostic]:
    expected = "/".join(("data", *_expected(actual, record, rule)))
    found: list[Diagnostic] = []
    if rule == "source":
        collection, problem = paths.collection_of(record)
        if problem is not None:
            found.append(_none(paths.COLLECTION_FIELD, problem))
        elif collection != actual[0]:
            found.append(
                datastore_diagnostics.make(
                    "EEE-FOLDER",
                    field=paths.COLLECTION_FIELD,
                    problem=datastore_diagnostics.FOLDER_COLLECTION.format(
                        actual=actual[0],
                        field=paths.COLLECTION_FIELD,
                        value=shown(_dataset_name(record)),
                        expected=collection,
                    ),
                    hint=datastore_diagnostics.FOLDER_HINT_COLLECTION.format(
                        expected=expected, field=paths.COLLECTION_FIELD
                    ),
                )
            )
    named = paths.identity(record)
    if named is None:
        return found  # `model_info` breaks the schema: that finding says so
    if named.problem is not None:
        found.append(_none(named.field, named.problem))
        return found
    info = record["model_info"]
    flat = "/" not in info["id"].strip()
    source = (
        datastore_diagnostics.FOLDER_SOURCE_FLAT.format(
            developer=shown(info["developer"]), id=shown(info["id"])
        )
        if flat
        else datastore_diagnostics.FOLDER_SOURCE_ID.format(id=shown(info["id"]))
    )
    differs = [
        part
        for part, have, want in (
            ("developer", actual[1], named.developer),
            ("model", actual[2], named.model),
        )
        if have != want
    ]
    if not differs:
        return found
    if len(differs) == 2:
        problem = datastore_diagnostics.FOLDER_PARTS.format(
            actual=f"{actual[1]}/{actual[2]}",
            source=source,
            expected=f"{named.developer}/{named.model}",
        )
    else:
        (part,) = differs
        problem = datastore_diagnostics.FOLDER_PART.format(
            part=part,
            actual=actual[1] if part == "developer" else actual[2],
            source=source,
            expected=named.developer if part == "developer" else named.model,
        )
    field_name = "model_info.developer" if flat and differs == ["developer"] else "model_info.id"
    found.append(
        datastore_diagnostics.make(
            "EEE-FOLDER",
            field=field_name,
            problem=problem,
            hint=datastore_diagnostics.FOLDER_HINT.format(expected=expected, field=field_name),
        )
    )
    return found


def _none(field_name: str, problem: str) -> Diagnostic:
    return datastore_diagnostics.make(
        "EEE-FOLDER",
        field=field_name,
        problem=datastore_diagnostics.FOLDER_NONE.format(problem=problem),
        hint=datastore_diagnostics.FOLDER_HINT_NONE,
    )


def _dataset_name(record: dict[str, Any]) -> object:
    results = record.get("evaluation_results")
    first = results[0] if isinstance(results, list) and results else None
    source = first.get("source_data") if isinstance(first, dict) else None
    return source.get("dataset_name") if isinstance(source, dict) else None


def moved(
    old: dict[str, Any],
    new: dict[str, Any],
    actual: tuple[str, str, str],
    rule: CollectionRule,
) -> Diagnostic | None:
    """EEE-MOVED-IDENTITY for an edit that changed what names the folder; None when the new
    record names no folder (its EEE-FOLDER says why)."""
    named = paths.identity(new)
    if named is not None and named.problem is not None:
        return None
    expected = "/".join(("data", *_expected(actual, new, rule)))
    if paths.identity(old) != named:
        field_name, was, now = "model_info.id", _model_id(old), _model_id(new)
    else:
        field_name = paths.COLLECTION_FIELD
        was, now = paths.collection_of(old)[0], paths.collection_of(new)[0]
    return datastore_diagnostics.make(
        "EEE-MOVED-IDENTITY",
        field=field_name,
        new=shown(now),
        old=shown(was),
        expected=expected,
    )


def _model_id(record: dict[str, Any]) -> object:
    info = record.get("model_info")
    return info.get("id") if isinstance(info, dict) else None
