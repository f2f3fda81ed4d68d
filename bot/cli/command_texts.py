"""User-facing texts of the `evalbot` command line (usage errors, summaries, help)."""

from __future__ import annotations

VALIDATE_HELP = "check eval.yaml and .eval_results files (exit 0 ok, 1 errors, 2 usage or I/O)"
VALIDATE_DESCRIPTION = (
    "Check benchmark eval.yaml files and model results files (.eval_results/*.yaml) against "
    "their benchmarks, as the bot does on a pull request."
)
PATHS_HELP = (
    "(default: the current folder) a model repo folder (its .eval_results/*.yaml), a results"
    " file, an eval.yaml, or an Every Eval Ever datastore folder (with data/ inside)"
)
BENCHMARKS_HELP = "offline benchmarks, laid out DIR/<org>/<name>/eval.yaml (default: the Hub)"
ISSUERS_HELP = (
    "a file of trusted token issuers (default: `issuers:` of config/bot.yaml, else of the "
    "packaged default)"
)
MODEL_REPO_HELP = "the model repo the results belong to (token claim model_repo)"
AT_HELP = "judge token freshness at this ISO-8601 time (default: now; no offset means UTC)"
FORMAT_HELP = "text (default), json (one object), or github (workflow annotations)"
STRICT_HELP = "fail on warnings too"
MARKDOWN_HELP = (
    "also append the report as Markdown (the tables of the bot's PR comment) to FILE, e.g."
    ' "$GITHUB_STEP_SUMMARY"'
)
MARKDOWN_UNWRITABLE = "evalbot validate: --markdown {path}: {problem}"
AGAINST_HELP = (
    "an Every Eval Ever datastore checkout (its main) that datastore folders are checked"
    " against: duplicates, moved records, samples files already there"
)
DATASTORE_HELP = (
    "a local checkout of an Every Eval Ever datastore (its data/ or flat/ tree): results whose "
    "source.url links one of its records are checked against that file (default: read the "
    "record from the Hub)"
)
NOT_A_DATASTORE_CHECKOUT = (
    "evalbot validate: --datastore {path}: not a datastore checkout (no data/ or flat/ inside)"
)
BLOCKING_WARNINGS = (
    "{count} {warnings_word} above (EEE-FOLDER) {verb} a datastore merge, as in EEE's own gate"
)
NOT_A_DATASTORE = "evalbot validate: --against {path}: not a datastore folder (no data/ inside)"

NO_SUCH_PATH = "evalbot validate: {path}: no such file or folder"
GONE_IN_HOOK_RUN = (
    "evalbot validate: {path}: not checked: gone since this pre-commit run began (a hook before"
    " this one renamed or removed it, and failed the run); the next run checks the new name"
)
NOT_A_FOLDER = "evalbot validate: --benchmarks {path}: not a folder"
NO_RESULTS = (
    "evalbot validate: {path}: nothing to check in this folder: a model repo holds"
    " .eval_results/*.yaml, a benchmark eval.yaml, and an Every Eval Ever datastore folder"
    " holds data/<collection>/<developer>/<model>/<uuid4>.json (with <uuid4>_samples.jsonl"
    " beside a record that declares one)"
)
NO_RESULTS_EEE = (
    "; its {count} .json/.jsonl {files_word} get a datastore's checks only under"
    " data/<collection>/<developer>/<model>/ (as `evalbot convert --to eee --out DIR` writes"
    " them); name them one by one for the schema check alone"
)
UNREADABLE = "evalbot validate: {path}: {problem}"
BAD_AT = "evalbot validate: --at {value!r}: not an ISO-8601 date or date-time"
BAD_MODEL_REPO = "evalbot validate: --model-repo {value!r}: not a repo id of the form owner/name"
NO_ISSUERS = "evalbot validate: --issuers {path}: no such file"
HUB_FAILED = (
    "evalbot {command}: could not read benchmarks from the Hub ({problem}); --offline reads"
    " those an earlier run cached, --benchmarks DIR reads them from a folder"
)
NOT_CACHED = (
    "evalbot {command}: offline: {problem}; run once with the Hub reachable to cache it, or"
    " give --benchmarks DIR"
)
OFFLINE_HELP = (
    "read benchmarks from the Hugging Face cache only, as HF_HUB_OFFLINE=1 does (they are"
    " cached by every run that reads them from the Hub)"
)

# -- operating the workers: beat, parked, replay ---------------------------------------------

BEAT_HELP = "run the scheduler of the periodic reconciliation (exactly one per deployment)"
BEAT_DESCRIPTION = (
    "Run Celery beat: every `reconcile.interval_s` seconds of config/bot.yaml it queues the "
    "reconciliation "
    "task, which catches up open PRs whose webhook was missed. Run exactly one beat per "
    "deployment (this command, or `evalbot worker --beat` on one worker)."
)
WORKER_BEAT_HELP = "also run the reconciliation scheduler in this worker (one per deployment)"
RECONCILE_DISABLED = (
    "evalbot {command}: reconciliation is disabled (`reconcile.interval_s: 0` in the bot "
    "config): "
    "there is nothing to schedule"
)

PARKED_HELP = "list the events the workers gave up on (newest first)"
PARKED_DESCRIPTION = (
    "List parked events: PR events the workers gave up on (a permanent Hub error, too many "
    "retries, a crash, a worker that died on every attempt), newest first, with the reason. "
    "Settings come from the environment, as for `evalbot worker`."
)
PARKED_LIMIT_HELP = "show at most N events (default: %(default)s)"
PARKED_JSON_HELP = "one JSON array of {index, parked_at, reason, detail, event}"
PARKED_NONE = "no parked events"
PARKED_SUMMARY = "{total} parked event(s), showing {shown} (replay with `evalbot replay --index N`)"
PARKED_LINE = "#{index}  {parked_at}  {reason:<18}  {what}"
PARKED_DETAIL = "      {detail}"
PARKED_NOT_AN_EVENT = "(not a PR event: cannot be replayed)"

REPLAY_HELP = "queue parked events again (an operator's tool)"
REPLAY_DESCRIPTION = (
    "Take parked events off the dead-letter list and queue them again for the workers, as new "
    "messages. Positions are those `evalbot parked` shows (0 = newest)."
)
REPLAY_ALL_HELP = "replay every parked event"
REPLAY_INDEX_HELP = "replay the event at this position (0 = newest)"
REPLAY_DONE = "replayed #{index}: {what}"
REPLAY_GONE = "#{index}: no longer parked (replayed meanwhile?)"
REPLAY_NOT_AN_EVENT = "#{index}: kept: not a PR event the workers accept ({reason})"
REPLAY_NO_SUCH_INDEX = "evalbot replay: no parked event at position {index} ({total} parked)"
REPLAY_SUMMARY = "{replayed} replayed, {kept} kept"
REDIS_FAILED = "evalbot {command}: cannot reach Redis: {error}"

STATUS_HELP = "show whether workers are consuming: heartbeats, queue, parked events, Hub pause"
STATUS_DESCRIPTION = (
    "Print the workers (from their heartbeats in Redis), the queue depth, the parked events and "
    "the workers' shared Hub pause. Exit 0 when at least one worker is alive, 1 when none is, "
    "2 when Redis cannot be read (docs/operating.md, 'Is a worker consuming?')."
)
STATUS_JSON_HELP = "one JSON object"
STATUS_WORKERS = "workers: {alive} alive, {dead} dead"
STATUS_WORKER = (
    "  {state:5}  {id}  last heartbeat {age:.1f} s ago (dead after {dead_after:.0f} s), "
    "holding {held}"
)
STATUS_NO_WORKERS = "  none has ever sent a heartbeat to this Redis"
STATUS_QUEUE = "queue: {queued} waiting, {unacked} delivered and not yet acknowledged"
STATUS_PARKED = "parked: {parked} (evalbot parked)"
STATUS_PAUSE = "Hub pause: {pause}"
STATUS_NOT_PAUSED = "none"
STATUS_NONE_ALIVE = "evalbot status: no worker is alive: queued events wait until one starts"

# --- evalbot eee -------------------------------------------------------------------------------
EEE_HELP = "Every Eval Ever datastores: what a schema version would do to the records held"
EEE_IMPACT_HELP = (
    "count the records of a datastore folder that a schema version would turn invalid, and"
    " why, grouped by rule"
)
EEE_DIR_HELP = "a datastore folder (its .json records are read, at any depth)"
EEE_SCHEMA_HELP = (
    "the schema to judge every record by: a version evalbot ships (0.2.0, 0.2.2, 0.3.0), or a"
    " draft: an eval.schema.json file, or a folder holding one (a checkout of EEE)"
)
EEE_NOT_A_FOLDER = "evalbot eee impact: {path}: no such folder"
EEE_BAD_VERSION = (
    "evalbot eee impact: --schema {version!r}: neither a version evalbot ships ({versions})"
    " nor a schema file or folder"
)
EEE_NO_SCHEMA_IN_FOLDER = (
    "evalbot eee impact: --schema {path}: no aggregate schema in this folder (looked for"
    " {names}); name the draft's eval.schema.json itself"
)
EEE_BAD_DRAFT = "evalbot eee impact: {problem}"
EEE_UNREADABLE = "evalbot eee impact: {problem}"
EEE_IMPACT_SUMMARY = (
    "Schema {schema}: {after} of {records} records would be schema-invalid ({newly} of them"
    " schema-valid under the version they declare today; {now} schema-invalid already;"
    " {unreadable} not JSON)."
)
EEE_IMPACT_RULE = "  {records:>6}  {rule}"
EEE_IMPACT_EXAMPLE = "          e.g. {path}"

# --- evalbot playground ------------------------------------------------------------------------
PLAYGROUND_HELP = "the validation playground in your browser, on this computer (no Redis, no token)"
PLAYGROUND_DESCRIPTION = (
    "Serve the web pages' playground and landing page on a loopback address: paste or upload a "
    "results file, an eval.yaml or a framework's output and see the report the bot's PR comment "
    "would show. Needs no Redis, Hub token or webhook secret; benchmarks are read as `evalbot "
    "validate` reads them: --benchmarks DIR, else anonymously from HF_ENDPOINT through the "
    "Hugging Face cache (--offline or HF_HUB_OFFLINE=1: the cache alone) (docs/web.md)."
)
PLAYGROUND_NOT_LOOPBACK = (
    "evalbot playground: --host {host}: the playground listens on this computer only "
    "(127.0.0.1, ::1 or localhost); to serve the pages to others, run `evalbot web` (docs/web.md)"
)
PLAYGROUND_READY = "evalbot playground: {url} (Ctrl-C to stop)"
