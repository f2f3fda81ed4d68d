"""What the supervisor runs, decided from the environment without touching the system.

Kept free of I/O (the one probe it needs, "is this folder writable", is passed in) so every
branch is tested with plain dictionaries.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from bot.configfiles import ConfigError, reconcile_interval_s
from bot.settings import EnvReader
from bot.supervise import texts

#: The port a Hugging Face Docker Space routes to (`app_port` in the Space card).
DEFAULT_PORT = 7860
#: `evalbot web`'s loopback port inside the container: any free one. Only the receiver reaches
#: it, and the supervisor, which binds it, tells the receiver the port it got
#: (`evalbot serve --web-upstream`); a fixed port could only collide with something else.
WEB_PORT = 0
#: A Space's persistent storage, when the owner enabled it; else Redis keeps its AOF locally.
PERSISTENT_ROOT = Path("/data")
LOCAL_REDIS_DIR = Path("var/redis")
#: Seconds the children get to stop after SIGTERM before SIGKILL. A worker uses them to finish
#: the event it is on (a validation and one comment: seconds, rarely more); one killed past
#: them is run again by the next worker. Longer would gain little where it matters most: a
#: container runtime's own grace (`docker stop`: 10 s) usually ends first.
SHUTDOWN_TIMEOUT_S = 30.0
#: Seconds the embedded Redis has to answer PING before the supervisor gives up. Replaying the
#: AOF of a bot's queue and keys (a few MB) takes well under a second; 30 s covers a slow
#: persistent disk, and a Redis that cannot start still stops the container within a minute.
REDIS_START_TIMEOUT_S = 30.0


class PlanError(ValueError):
    """The supervisor's own variables are malformed; the message lists every problem."""


@dataclass(frozen=True, slots=True)
class ChildSpec:
    """One process to start: a name for the logs, its argv and its whole environment."""

    name: str
    argv: tuple[str, ...]
    env: Mapping[str, str]
    #: Descriptors the child inherits: the listening socket its `--fd` names.
    pass_fds: tuple[int, ...] = ()

    def command_line(self) -> str:
        return shlex.join(self.argv)


@dataclass(frozen=True, slots=True)
class Listener:
    """A port the supervisor binds and listens on before the child that serves it starts.

    The child inherits the socket (`--fd`, bot/cli/serving.py), so no one can take the port
    between the check and the child's start, and a port in use stops the supervisor at once,
    naming the setting, instead of a child dying after Redis and the workers started."""

    host: str
    #: 0: any free port (the internal ones may be anything; a Space routes to a fixed `PORT`).
    port: int
    #: The setting that chose it, for the error message; None for the internal port.
    variable: str | None


@dataclass(frozen=True, slots=True)
class Bound:
    """A listening socket the supervisor holds: its descriptor and the port it got."""

    fd: int
    port: int


@dataclass(frozen=True, slots=True)
class EmbeddedRedis:
    """The local redis-server started when no `REDIS_URL` is given."""

    port: int
    directory: Path
    spec: ChildSpec

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"


@dataclass(frozen=True, slots=True)
class Plan:
    """Everything to run: Redis first (when embedded), then the receiver and the workers."""

    redis: EmbeddedRedis | None
    #: The receiver's public port (`EVALBOT_HOST`:`PORT`), unless `public_fd` is given.
    public: Listener
    #: `EVALBOT_LISTEN_FD`: a listening socket inherited from whoever started the supervisor
    #: (systemd's socket activation, a test), served instead of binding `public`.
    public_fd: int | None
    workers: tuple[ChildSpec, ...]
    #: `evalbot web` on loopback, reached through the receiver's public port (docs/web.md);
    #: None when `EVALBOT_WEB=0`.
    web: Listener | None
    #: Seconds the children get to stop after SIGTERM (a worker finishes its running task).
    shutdown_timeout_s: float
    #: Seconds the embedded Redis gets to answer PING before the supervisor gives up.
    redis_start_timeout_s: float
    #: The environment every bot process sees (with `REDIS_URL` filled in when embedded).
    bot_env: Mapping[str, str]

    python: str

    def bot_children(self, public: Bound, web: Bound | None) -> tuple[ChildSpec, ...]:
        """The web pages (when enabled), the receiver and the workers, the two servers on the
        sockets the supervisor bound (`public`, and `web` when `self.web` is set)."""
        servers: list[ChildSpec] = []
        forward: tuple[str, ...] = ()
        if self.web is not None:
            if web is None:
                raise ValueError("the web pages are enabled: their socket is needed")
            servers.append(self._server("web", "web", web))
            forward = ("--web-upstream", f"http://127.0.0.1:{web.port}")
        servers.append(self._server("receiver", "serve", public, forward))
        return (*servers, *self.workers)

    def _server(
        self, name: str, command: str, bound: Bound, options: tuple[str, ...] = ()
    ) -> ChildSpec:
        argv = (self.python, "-m", "bot", command, "--fd", str(bound.fd), *options)
        return ChildSpec(name, argv, self.bot_env, pass_fds=(bound.fd,))


def plan_from_env(
    environ: Mapping[str, str],
    *,
    python: str,
    redis_binary: str | None,
    writable: Callable[[Path], bool],
    shutdown_timeout_s: float = SHUTDOWN_TIMEOUT_S,
    redis_start_timeout_s: float = REDIS_START_TIMEOUT_S,
    web_port: int = WEB_PORT,
) -> Plan:
    """Read the supervisor's variables (docs/deploy.md) and decide what to start.

    `python` runs the bot's processes (`python -m bot serve|worker`); `redis_binary` is the
    `redis-server` found on PATH (or None); `writable` tells whether a folder can hold the AOF.
    The timeouts and `web_port` are there for tests; the supervisor keeps the constants.
    """
    reader = EnvReader(environ)
    problems = reader.problems
    port = reader.integer("PORT", DEFAULT_PORT, minimum=1)
    workers = reader.integer("EVALBOT_WORKERS", 1, minimum=1)
    concurrency = reader.integer("EVALBOT_WORKER_CONCURRENCY", 2, minimum=1)
    host = reader.optional("EVALBOT_HOST") or "0.0.0.0"  # noqa: S104 - a container's service port
    public_fd = reader.integer("EVALBOT_LISTEN_FD", -1, minimum=3)
    reconcile_interval = _reconcile_interval(reader)
    web_enabled = reader.optional("EVALBOT_WEB") not in ("0", "false", "no")

    bot_env = dict(environ)
    redis: EmbeddedRedis | None = None
    if reader.optional("REDIS_URL") is None:
        redis_port = reader.integer("EVALBOT_REDIS_PORT", 6379, minimum=1)
        if redis_binary is None:
            binary = reader.optional("EVALBOT_REDIS_SERVER") or "redis-server"
            problems.append(texts.NO_REDIS_BINARY.format(binary=binary))
            redis_binary = binary
        directory = _redis_directory(reader, writable)
        redis = EmbeddedRedis(
            port=redis_port,
            directory=directory,
            spec=ChildSpec("redis", redis_argv(redis_binary, redis_port, directory), dict(environ)),
        )
        bot_env["REDIS_URL"] = redis.url
    if problems:
        raise PlanError(
            texts.INVALID_CONFIG.format(prefix=texts.PREFIX, problems="\n  - ".join(problems))
        )

    worker_specs = tuple(
        ChildSpec(
            f"worker{index}",
            (
                python,
                "-m",
                "bot",
                "worker",
                "--concurrency",
                str(concurrency),
                "--hostname",
                f"worker{index}@%h",
                # One beat per deployment (docs/operating.md, "Reconciliation"): the first
                # worker embeds it, unless reconciliation is disabled (`reconcile.interval_s`
                # of the bot config is 0).
                *(("--beat",) if index == 1 and reconcile_interval > 0 else ()),
            ),
            bot_env,
        )
        for index in range(1, workers + 1)
    )
    return Plan(
        redis=redis,
        public=Listener(host, port, "PORT"),
        public_fd=public_fd if public_fd >= 0 else None,
        workers=worker_specs,
        web=Listener("127.0.0.1", web_port, None) if web_enabled else None,
        python=python,
        shutdown_timeout_s=shutdown_timeout_s,
        redis_start_timeout_s=redis_start_timeout_s,
        bot_env=bot_env,
    )


def _reconcile_interval(reader: EnvReader) -> int:
    """`reconcile.interval_s` of the bot config (0: no reconciliation, so no beat); a problem
    there is one of the plan's."""
    _, bot_config = reader.bot_config()
    try:
        return reconcile_interval_s(bot_config)
    except ConfigError as error:
        reader.problems.append(str(error))
        return 0


def redis_argv(binary: str, port: int, directory: Path) -> tuple[str, ...]:
    """The embedded broker's settings: what docs/security.md#redis-persistence asks of the broker
    Redis.

    AOF with `everysec` (a crash loses at most ~1 s of queued events and dedupe keys), no RDB
    snapshots, `noeviction` (a full Redis refuses writes, so the receiver answers 503 and the
    Hub retries, rather than silently dropping queued tasks), loopback only.
    """
    return (
        binary,
        "--bind",
        "127.0.0.1",
        "--port",
        str(port),
        "--protected-mode",
        "yes",
        "--dir",
        str(directory),
        "--appendonly",
        "yes",
        "--appendfsync",
        "everysec",
        "--save",
        "",
        "--maxmemory-policy",
        "noeviction",
        "--daemonize",
        "no",
    )


def _redis_directory(reader: EnvReader, writable: Callable[[Path], bool]) -> Path:
    configured = reader.optional("EVALBOT_REDIS_DIR")
    if configured is not None:
        return Path(configured)
    if writable(PERSISTENT_ROOT):
        return PERSISTENT_ROOT / "evalbot-redis"
    return LOCAL_REDIS_DIR
