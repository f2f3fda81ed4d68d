"""User-facing texts of `evalbot gate` and `evalbot collections` (usage errors and help)."""

from __future__ import annotations

GATE_HELP = "does a model clear a collection's bar? (exit 0 pass, 1 fail, 2 usage or I/O)"
GATE_DESCRIPTION = (
    "Gate a model on a collection: each benchmark against its threshold, then the weighted "
    "aggregate of the scores put on one scale against the collection's pass threshold. TARGET "
    "is a local model repo folder (its .eval_results/*.yaml) or a Hub model repo id (its "
    "results on main, read from HF_ENDPOINT)."
)
TARGET_HELP = "a model repo folder, or a Hub model repo id (owner/name)"
COLLECTION_HELP = (
    "a collection id (`evalbot collections list` shows them) or the path of a collection file"
)
COLLECTIONS_DIR_HELP = "a folder of user collections, ID.yaml each"
INCLUDE_OPEN_PRS_HELP = "also count the results the repo's open PRs propose (Hub targets only)"
REVISION_HELP = "the Hub revision to read (default: main)"
TAG_HELP = "KEY=VALUE carried into the JSON result's `tags` (EvalHub's experiment tags); repeatable"
FORMAT_HELP = "text (default), json (EvalHub's field names), or github (workflow annotations)"

COLLECTIONS_HELP = "list, show or validate collections (exit 0 ok, 1 errors, 2 usage or I/O)"
COLLECTIONS_DESCRIPTION = (
    "Collections are named, versioned sets of benchmarks with a threshold and a weight each, "
    "and a pass threshold for their aggregate: system ones ship with evalbot (read-only), user "
    "ones live in a folder you name."
)
LIST_HELP = "the system and user collections"
SHOW_HELP = "one collection, checked against its benchmarks"
VALIDATE_HELP = "check collection files (default: every system and user collection)"
IMPORT_HELP = (
    "convert an EvalHub collection (eval-hub/eval-hub config/collections/*.yaml) into an evalbot "
    "one (exit 0 written, 1 errors, 2 usage or I/O)"
)
IMPORT_FILE_HELP = "the EvalHub collection file"
IMPORT_MAP_HELP = (
    "the Hub benchmark an EvalHub benchmark id stands for, e.g. "
    "leaderboard_gpqa=Idavidrein/gpqa:diamond (repeatable)"
)
IMPORT_SCALE_HELP = (
    "the scale EvalHub's scores and thresholds are on (default: fraction when every threshold "
    "is within 0-1, else percent)"
)
IMPORT_MAP_KNOWN_HELP = (
    "apply the --map values evalbot's mapping table knows (printed when it knows some); "
    "a --map you give wins"
)
IMPORT_MAPPINGS_HELP = "more mapping rows to propose --map values from (as `evalbot convert`)"
IMPORT_KNOWN = (
    "the mapping table knows {count} Hub benchmark(s) for this file; add these options, or "
    "--map-known to apply them:"
)
IMPORT_NOTE = "  note: {id}: {note}"
IMPORT_CHOOSE = "{id}: {note}:"
IMPORT_DROP_HELP = "leave out the benchmarks no --map names instead of refusing"
IMPORT_OUTPUT_HELP = "write the collection here (default: standard output); never overwritten"
IMPORT_BAD_MAP = "--map {item}: write ID=OWNER/NAME:TASK or ID=OWNER/NAME:TASK:METRIC"
IMPORT_EXISTS = "{path} exists; choose another --output"
IMPORT_NEXT = "next: `evalbot collections validate {path}` checks it against its benchmarks"
FILES_HELP = "collection files to check (their id is the file name)"

PREFIX = "evalbot {command}: "
NOT_A_TARGET = "{target}: neither a folder nor a Hub repo id of the form owner/name"
NO_RESULTS = "{target}: no .eval_results/*.yaml in this folder"
LOCAL_AND_PRS = "--include-open-prs needs a Hub repo id, not a folder"
USING_COLLECTION = "collection `{id}`: {path}"
INVALID_COLLECTION = "collection `{id}` ({path}) has {errors} error(s):"
BAD_TAG = "--tag {tag}: write KEY=VALUE, e.g. --tag run=nightly"
TAG_TWICE = "--tag {key}=…: the key is given twice; give each key once"
HUB_FAILED = (
    "could not read from the Hub ({problem}); {target} is a Hub repo, whose results only the"
    " Hub has: to gate without the Hub, gate a model folder holding its .eval_results/*.yaml"
    " (a clone of the repo){benchmarks}"
)
HUB_FAILED_BENCHMARKS = ", with --benchmarks DIR or --offline for its benchmarks"
OFFLINE_HUB_TARGET = (
    "{why}: {target} is a Hub repo, whose results only the Hub has; gate a model folder"
    " (its .eval_results/*.yaml) offline"
)
NO_SUCH_FILE = "{path}: no such file"
