"""User-facing texts of the `evalbot` command line (usage errors, summaries, help)."""

from __future__ import annotations

VALIDATE_HELP = "check eval.yaml and .eval_results files (exit 0 ok, 1 errors, 2 usage or I/O)"
VALIDATE_DESCRIPTION = (
    "Check benchmark eval.yaml files and model results files (.eval_results/*.yaml) against "
    "their benchmarks, as the bot does on a pull request."
)
PATHS_HELP = "a model repo folder (its .eval_results/*.yaml), a results file, or an eval.yaml"
BENCHMARKS_HELP = "offline benchmarks, laid out DIR/<org>/<name>/eval.yaml (default: the Hub)"
ISSUERS_HELP = "trusted token issuers (default: config/issuers.yaml, else the packaged default)"
MODEL_REPO_HELP = "the model repo the results belong to (token claim model_repo)"
AT_HELP = "judge token freshness at this ISO-8601 time (default: now; no offset means UTC)"
FORMAT_HELP = "text (default), json (one object), or github (workflow annotations)"
STRICT_HELP = "fail on warnings too"

NO_SUCH_PATH = "evalbot validate: {path}: no such file or folder"
NOT_A_FOLDER = "evalbot validate: --benchmarks {path}: not a folder"
NO_RESULTS = "evalbot validate: {path}: no .eval_results/*.yaml and no eval.yaml in this folder"
UNREADABLE = "evalbot validate: {path}: {problem}"
BAD_AT = "evalbot validate: --at {value!r}: not an ISO-8601 date or date-time"
BAD_MODEL_REPO = "evalbot validate: --model-repo {value!r}: not a repo id of the form owner/name"
NO_ISSUERS = "evalbot validate: --issuers {path}: no such file"
HUB_FAILED = (
    "evalbot validate: could not read benchmarks from the Hub ({problem});"
    " use --benchmarks DIR offline"
)

SUMMARY = (
    "{files} {file_word}, {entries} {entry_word}: {errors} {error_word}, {warnings} {warning_word}"
)
FILE_OK = "ok"
HINT = "hint"
