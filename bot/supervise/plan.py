"""What the Space's container runs, decided from the environment without touching the system:
the variables `supervisord.conf` expands (`EVALBOT_SUPERVISE_*`, and the bot's own settings
filled in), tested with plain dictionaries (the probes it needs are passed in)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

from bot.configfiles import ConfigError, reconcile_interval_s
from bot.settings import EnvReader
from bot.supervise import startup_messages

#: The port a Hugging Face Docker Space routes to (`app_port` in the Space card).
DEFAULT_PORT = 7860
#: A Space's persistent storage, when the owner enabled it; else Redis keeps its AOF locally.
PERSISTENT_ROOT = Path("/data")
LOCAL_REDIS_DIR = Path("var/redis")
#: The supervisord configuration the container runs, shipped beside this module.
CONFIG = Path(__file__).with_name("supervisord.conf")


class PlanError(ValueError):
    """The container's variables are malformed; the message lists every problem."""


def space_environment(
    environ: Mapping[str, str],
    *,
    python: str,
    redis_binary: str | None,
    writable: Callable[[Path], bool],
    web_port: Callable[[], int],
) -> dict[str, str]:
    """The environment supervisord runs with (docs/operating.md, "Space supervisor").

    `python` runs the bot's processes; `redis_binary` is the `redis-server` found on PATH (or
    None); `writable` tells whether a folder can hold the AOF; `web_port` picks the pages'
    loopback port (only the receiver reaches it)."""
    reader = EnvReader(environ)
    problems = reader.problems
    env = dict(environ)
    env["PORT"] = str(reader.integer("PORT", DEFAULT_PORT, minimum=1))
    env["EVALBOT_HOST"] = reader.optional("EVALBOT_HOST") or "0.0.0.0"  # noqa: S104
    env["EVALBOT_WORKERS"] = str(reader.integer("EVALBOT_WORKERS", 1, minimum=1))
    concurrency = reader.integer("EVALBOT_WORKER_CONCURRENCY", 2, minimum=1)
    env["EVALBOT_WORKER_CONCURRENCY"] = str(concurrency)
    env["EVALBOT_SUPERVISE_PYTHON"] = python
    env["EVALBOT_SUPERVISE_BEAT"] = _flag(_reconcile_interval(reader) > 0)
    web = reader.optional("EVALBOT_WEB") not in ("0", "false", "no")
    env["EVALBOT_SUPERVISE_WEB"] = _flag(web)
    env["EVALBOT_SUPERVISE_WEB_PORT"] = str(web_port() if web else 0)
    upstream = f"http://127.0.0.1:{env['EVALBOT_SUPERVISE_WEB_PORT']}"
    env["EVALBOT_SUPERVISE_UPSTREAM"] = f"--web-upstream {upstream}" if web else ""
    embedded = reader.optional("REDIS_URL") is None
    env["EVALBOT_SUPERVISE_REDIS"] = _flag(embedded)
    port = reader.integer("EVALBOT_REDIS_PORT", 6379, minimum=1)
    env["EVALBOT_REDIS_PORT"] = str(port)
    env["EVALBOT_REDIS_DIR"] = str(_redis_directory(reader, writable))
    env["EVALBOT_REDIS_SERVER"] = redis_binary or "redis-server"
    if embedded:
        env["REDIS_URL"] = f"redis://127.0.0.1:{port}/0"
        if redis_binary is None:
            binary = reader.optional("EVALBOT_REDIS_SERVER") or "redis-server"
            problems.append(startup_messages.NO_REDIS_BINARY.format(binary=binary))
    if problems:
        raise PlanError(
            startup_messages.INVALID_CONFIG.format(
                prefix=startup_messages.PREFIX, problems="\n  - ".join(problems)
            )
        )
    return env


def _flag(on: bool) -> str:
    return "true" if on else "false"


def _reconcile_interval(reader: EnvReader) -> int:
    """`reconcile.interval_s` of the bot config (0: no reconciliation, so no beat); a problem
    there is one of the plan's."""
    _, bot_config = reader.bot_config()
    try:
        return reconcile_interval_s(bot_config)
    except ConfigError as error:
        reader.problems.append(str(error))
        return 0


def _redis_directory(reader: EnvReader, writable: Callable[[Path], bool]) -> Path:
    configured = reader.optional("EVALBOT_REDIS_DIR")
    if configured is not None:
        return Path(configured)
    if writable(PERSISTENT_ROOT):
        return PERSISTENT_ROOT / "evalbot-redis"
    return LOCAL_REDIS_DIR
