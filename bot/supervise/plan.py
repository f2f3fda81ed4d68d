"""What the Space's container runs, decided from the environment without touching the system."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from bot.botconfig.document import ConfigError
from bot.botconfig.files import load_bot_config
from bot.settings import EnvReader
from bot.supervise import startup_messages

#: The port a Hugging Face Docker Space routes to (`app_port` in the Space card).
DEFAULT_PORT = 7860
#: A Space's persistent storage, when the owner enabled it; else Redis keeps its AOF locally.
PERSISTENT_ROOT = Path("/data")
LOCAL_REDIS_DIR = Path("var/redis")
#: The template of the supervisord configuration the container runs, shipped beside this module.
CONFIG_TEMPLATE = Path(__file__).with_name("supervisord.conf")


class PlanError(ValueError):
    """The container's variables are malformed; the message lists every problem."""


@dataclass(frozen=True)
class SpacePlan:
    """The environment supervisord and the bot's processes run with, and its configuration."""

    env: dict[str, str]
    config: str
    embedded_redis: bool


def space_plan(
    environ: Mapping[str, str],
    *,
    python: str,
    redis_binary: str | None,
    writable: Callable[[Path], bool],
    web_port: Callable[[], int],
) -> SpacePlan:
    """What the container runs (docs/operating.md, "Space supervisor").

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
    beat = _reconcile_interval(reader) > 0
    web = reader.optional("EVALBOT_WEB") not in ("0", "false", "no")
    port_of_the_pages = web_port() if web else 0
    upstream = f"--web-upstream http://127.0.0.1:{port_of_the_pages}" if web else ""
    embedded = reader.optional("REDIS_URL") is None
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
    config = CONFIG_TEMPLATE.read_text().format(
        python=python,
        beat=_flag(beat),
        web=_flag(web),
        web_port=port_of_the_pages,
        upstream=upstream,
        redis=_flag(embedded),
    )
    return SpacePlan(env=env, config=config, embedded_redis=embedded)


def _flag(on: bool) -> str:
    return "true" if on else "false"


def _reconcile_interval(reader: EnvReader) -> int:
    """`reconcile.interval_s` of the bot config (0: no reconciliation, so no beat); every
    problem of the file is one of the plan's, so the Space stops before starting anything."""
    config_dir, bot_config = reader.bot_config()
    reader.check_moved_files(config_dir, bot_config)
    if not bot_config.is_file():
        return 0  # the reader named the path that is no file
    try:
        return load_bot_config(bot_config).reconcile.interval_s
    except ConfigError as error:
        reader.problems.extend(str(problem) for problem in error.problems)
        return 0


def _redis_directory(reader: EnvReader, writable: Callable[[Path], bool]) -> Path:
    configured = reader.optional("EVALBOT_REDIS_DIR")
    if configured is not None:
        return Path(configured)
    if writable(PERSISTENT_ROOT):
        return PERSISTENT_ROOT / "evalbot-redis"
    return LOCAL_REDIS_DIR
