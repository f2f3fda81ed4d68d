"""`evalbot collections list|show|validate`: the collections a gate can use, each checked like an
eval.yaml against its benchmarks (docs/collections.md, "Validation")."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bot.cli import command_texts, gate_texts
from bot.cli.collections_runtime import complete_collection
from bot.cli.sources import add_offline_option

if TYPE_CHECKING:
    from bot.adapters.collections_store import StoredCollection
    from bot.collections.evalhub_known import Proposal
    from bot.collections.model import Collection
    from bot.validation.diagnostics import Diagnostic

COMMAND = "collections"


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        COMMAND, help=gate_texts.COLLECTIONS_HELP, description=gate_texts.COLLECTIONS_DESCRIPTION
    )
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    for name, help_text, run in (
        ("list", gate_texts.LIST_HELP, run_list),
        ("show", gate_texts.SHOW_HELP, run_show),
        ("validate", gate_texts.VALIDATE_HELP, run_validate),
    ):
        sub = actions.add_parser(name, help=help_text)
        if name == "show":
            shown = sub.add_argument(
                "collection", metavar="ID|FILE", help=gate_texts.COLLECTION_HELP
            )
            shown.completer = complete_collection  # type: ignore[attr-defined]
        if name == "validate":
            sub.add_argument("files", nargs="*", metavar="FILE", help=gate_texts.FILES_HELP)
        sub.add_argument("--collections", metavar="DIR", help=gate_texts.COLLECTIONS_DIR_HELP)
        if name != "list":
            sub.add_argument("--benchmarks", metavar="DIR", help=command_texts.BENCHMARKS_HELP)
            add_offline_option(sub)
        formats = ("text", "json", "github") if name == "validate" else ("text", "json")
        sub.add_argument("--format", choices=formats, default="text", help=gate_texts.FORMAT_HELP)
        sub.set_defaults(run=run)
    imports = actions.add_parser(
        "import", help=gate_texts.IMPORT_HELP, description=gate_texts.IMPORT_HELP
    )
    imports.add_argument("file", metavar="FILE", help=gate_texts.IMPORT_FILE_HELP)
    imports.add_argument(
        "--map",
        action="append",
        default=[],
        metavar="ID=OWNER/NAME:TASK[:METRIC]",
        help=gate_texts.IMPORT_MAP_HELP,
    )
    imports.add_argument("--map-known", action="store_true", help=gate_texts.IMPORT_MAP_KNOWN_HELP)
    imports.add_argument(
        "--mappings",
        action="append",
        default=[],
        metavar="FILE",
        help=gate_texts.IMPORT_MAPPINGS_HELP,
    )
    imports.add_argument(
        "--scale", choices=("percent", "fraction"), help=gate_texts.IMPORT_SCALE_HELP
    )
    imports.add_argument("--drop-unmapped", action="store_true", help=gate_texts.IMPORT_DROP_HELP)
    imports.add_argument("--output", "-o", metavar="OUT", help=gate_texts.IMPORT_OUTPUT_HELP)
    imports.set_defaults(run=run_import)


def run_import(args: argparse.Namespace) -> int:
    """An EvalHub collection file as an evalbot one: exit 0 written, 1 errors, 2 usage or I/O."""
    import sys

    from bot.cli.collections_runtime import Refused, fail, findings_text
    from bot.cli.sources import UsageError, mapping_table
    from bot.collections.evalhub import HubTarget, import_evalhub
    from bot.collections.evalhub_known import propose
    from bot.collections.model import Scale

    try:
        targets: dict[str, HubTarget] = {}
        for item in args.map:
            key, sep, value = item.partition("=")
            target = HubTarget.parse(value) if sep and key else None
            if target is None:
                raise Refused(gate_texts.IMPORT_BAD_MAP.format(item=item))
            targets[key] = target
        source = Path(args.file)
        try:
            content = source.read_bytes()
        except OSError as error:
            raise Refused(f"{args.file}: {error.strerror}") from error
        output = Path(args.output) if args.output else None
        if output is not None and output.exists():
            raise Refused(gate_texts.IMPORT_EXISTS.format(path=output))
        try:
            table = mapping_table(args.mappings, command="evalbot collections import")
        except UsageError as error:
            raise Refused(str(error).removeprefix("evalbot collections import: ")) from error
    except Refused as error:
        return fail(COMMAND, error)
    proposals = {
        key: proposal for key, proposal in propose(content, table).items() if key not in targets
    }
    origins: dict[str, str] = {}
    if args.map_known:
        for key, proposal in proposals.items():
            if proposal.known is not None:
                targets[key] = proposal.known
                origins[key] = _origin(proposal)
    imported = import_evalhub(
        content,
        targets,
        scale=Scale(args.scale) if args.scale else None,
        drop_unmapped=args.drop_unmapped,
        source=source.name,
        origins=origins,
        hints={key: _hint(proposal) for key, proposal in proposals.items()},
    )
    if imported.diagnostics:
        print(findings_text(source, imported.diagnostics), file=sys.stderr)
    unapplied = {key: p for key, p in proposals.items() if key not in targets}
    if unapplied:
        print(_proposals_text(unapplied), file=sys.stderr)
    if imported.text is None:
        return 1
    if output is None:
        print(imported.text, end="")
    else:
        try:
            output.parent.mkdir(parents=True, exist_ok=True)  # `-o gates/lb.yaml` in a new repo
            output.write_text(imported.text, encoding="utf-8")
        except OSError as error:
            return fail(COMMAND, f"{output}: {error.strerror}")
    notes = [
        line.removeprefix("# ") for line in imported.text.splitlines() if line.startswith("# ")
    ]
    print("\n".join(notes[1:]), file=sys.stderr)
    print(gate_texts.IMPORT_NEXT.format(path=output or "the file"), file=sys.stderr)
    return 0


def _origin(proposal: Proposal) -> str:
    """Where an applied `--map` came from, for the written file's header: the shipped table is
    named by its file name (its path is the installation's, not the user's)."""
    from bot import packaged_defaults

    shipped = str(packaged_defaults.mappings_file())
    rows = ", ".join(
        row.replace(shipped, "evalbot's mappings.yaml", 1) if row.startswith(shipped) else row
        for row in proposal.rows
    )
    return f"the mapping table ({rows})" + (f"; note: {proposal.note}" if proposal.note else "")


def _hint(proposal: Proposal) -> str:
    from bot.collections import collection_diagnostics

    if proposal.known is not None:
        return collection_diagnostics.IMPORT_KNOWN_HINT.format(flag=proposal.flag())
    flags = " | ".join(proposal.flag(target) for target in proposal.candidates)
    return collection_diagnostics.IMPORT_CANDIDATES_HINT.format(note=proposal.note, flags=flags)


def _proposals_text(proposals: dict[str, Proposal]) -> str:
    """The `--map` options the mapping table knows, ready to paste, then the candidates of
    those it cannot choose alone."""
    known = [proposal for proposal in proposals.values() if proposal.known is not None]
    lines: list[str] = []
    if known:
        lines.append(gate_texts.IMPORT_KNOWN.format(count=len(known)))
        lines.extend(f"  {proposal.flag()} \\" for proposal in known)
        lines[-1] = lines[-1].removesuffix(" \\")
        lines.extend(
            gate_texts.IMPORT_NOTE.format(id=p.evalhub_id, note=p.note) for p in known if p.note
        )
    for proposal in proposals.values():
        if proposal.known is None:
            lines.append(
                gate_texts.IMPORT_CHOOSE.format(id=proposal.evalhub_id, note=proposal.note)
            )
            lines.extend(f"  {proposal.flag(target)}" for target in proposal.candidates)
    return "\n".join(lines)


def run_list(args: argparse.Namespace) -> int:
    """Ids, scopes and names, read without checking (no benchmark is fetched)."""
    from bot.adapters.collections_store import StoreError, all_collections, where
    from bot.cli.collections_runtime import fail

    try:
        stored = all_collections(args.collections)
        print(where(args.collections), file=sys.stderr)
        rows = [_summary(item) for item in stored]
    except StoreError as error:
        return fail(COMMAND, error)
    if args.format == "json":
        print(json.dumps(rows, indent=2))
        return 0
    for row in rows:
        version = f" v{row['version']}" if row["version"] else ""
        print(
            f"{row['id']:<28} {row['scope']:<6} {row['name'] or '(unreadable)'}{version}"
            f"  [{row['benchmarks']} benchmarks]"
        )
    return 0


def _summary(stored: StoredCollection) -> dict[str, Any]:
    from bot.validation.yamlload import load_yaml

    loaded = load_yaml(stored.read())
    data = loaded.data if isinstance(loaded.data, dict) else {}
    items = data.get("benchmarks")
    version = data.get("version")
    return {
        "id": stored.id,
        "scope": stored.scope.value,
        "path": str(stored.path),
        "name": data.get("name") if isinstance(data.get("name"), str) else None,
        "category": data.get("category") if isinstance(data.get("category"), str) else None,
        "version": None if version is None else str(version),
        "benchmarks": len(items) if isinstance(items, list) else 0,
    }


def run_show(args: argparse.Namespace) -> int:
    from bot.adapters.collections_store import StoreError, named
    from bot.cli.collections_runtime import Refused, benchmarks, check_stored, fail

    try:
        stored = named(args.collection, args.collections)
        print(gate_texts.USING_COLLECTION.format(id=stored.id, path=stored.path), file=sys.stderr)
        collection, diagnostics = check_stored(
            stored, benchmarks(args.benchmarks, offline=args.offline)
        )
    except (Refused, StoreError) as error:
        return fail(COMMAND, error)
    if args.format == "json":
        print(json.dumps(_collection_json(stored, collection, diagnostics), indent=2))
    else:
        print(_collection_text(stored, collection, diagnostics))
    return 0 if collection is not None else 1


def run_validate(args: argparse.Namespace) -> int:
    from bot.adapters.collections_store import (
        StoredCollection,
        StoreError,
        all_collections,
        where,
    )
    from bot.cli.collections_runtime import Refused, benchmarks, check_stored, fail
    from bot.collections.model import Scope

    try:
        if args.files:
            stored = []
            for name in args.files:
                path = Path(name)
                if not path.is_file():
                    raise Refused(gate_texts.NO_SUCH_FILE.format(path=name))
                stored.append(StoredCollection(path.stem, Scope.USER, path))
        else:
            stored = all_collections(args.collections)
            print(where(args.collections), file=sys.stderr)
        source = benchmarks(args.benchmarks, offline=args.offline)
        checked = [(item, *check_stored(item, source)) for item in stored]
    except (Refused, StoreError) as error:
        return fail(COMMAND, error)
    if args.format == "json":
        objects = [_collection_json(item, c, d) for item, c, d in checked]
        ok = all(c is not None for _item, c, _d in checked)
        print(json.dumps({"ok": ok, "collections": objects}, indent=2))
    elif args.format == "github":
        from bot.report.validation_formats import render_github
        from bot.validation.model import FileReport

        reports = [FileReport(str(item.path), "benchmark", list(d)) for item, _c, d in checked]
        text = render_github(reports)
        if text:
            print(text)
    else:
        print("\n".join(_collection_text(item, c, d) for item, c, d in checked))
    return 0 if all(c is not None for _item, c, _d in checked) else 1


def _collection_json(
    stored: StoredCollection, collection: Collection | None, diagnostics: list[Diagnostic]
) -> dict[str, Any]:
    body: dict[str, Any] = {
        "id": stored.id,
        "scope": stored.scope.value,
        "path": str(stored.path),
        "ok": collection is not None,
        "diagnostics": [diagnostic.to_json() for diagnostic in diagnostics],
    }
    if collection is not None:
        body.update(
            name=collection.name,
            category=collection.category,
            description=collection.description,
            tags=list(collection.tags),
            version=collection.version,
            content_hash=collection.content_hash,
            scale=collection.scale.value,
            pass_criteria={
                "threshold": collection.threshold,
                "allow_missing": collection.allow_missing,
                "require_all": collection.require_all,
            },
            benchmarks=[
                {
                    "id": member.id,
                    "task_id": member.task_id,
                    "metric": member.metric,
                    "notes": member.notes,
                    "threshold": member.threshold,
                    "weight": member.weight,
                    "lower_is_better": member.lower_is_better,
                    "range": [member.low, member.high],
                }
                for member in collection.benchmarks
            ],
        )
    return body


def _collection_text(
    stored: StoredCollection, collection: Collection | None, diagnostics: list[Diagnostic]
) -> str:
    from bot.report.validation_formats import diagnostic_lines

    head = f"{stored.id} ({stored.scope.value}, {stored.path}): "
    out = [head + ("ok" if collection is not None else "invalid")]
    if collection is not None:
        out.append(f"  {collection.name} [{collection.category}], {collection.content_hash}")
        out.append(
            f"  pass at {collection.threshold:g} on the {collection.scale.value} scale"
            + (", missing results allowed" if collection.allow_missing else "")
            + (", a missing result counts as 0" if collection.missing_as_zero else "")
        )
        for member in collection.benchmarks:
            bar = (
                ""
                if member.threshold is None
                else (f" {'≤' if member.lower_is_better else '≥'} {member.threshold:g}")
            )
            out.append(
                f"  - {member.id} / {member.task_id} / {member.metric}{bar}, weight "
                f"{member.weight:g}, range [{member.low:g}, {member.high:g}]"
            )
    out.extend(diagnostic_lines(diagnostics, path=str(stored.path)))
    return "\n".join(out)
