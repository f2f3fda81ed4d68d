"""`python -m bot.supervise`: check the settings, then run supervisord with the Space's
processes."""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path

from bot.server_extra import server_refusal
from bot.settings import Settings, SettingsError
from bot.sockets import listening_socket
from bot.supervise import startup_messages
from bot.supervise.plan import PlanError, space_plan


def _writable(folder: Path) -> bool:
    return folder.is_dir() and os.access(folder, os.W_OK)


def _free_loopback_port() -> int:
    with listening_socket(0, "127.0.0.1") as sock:
        return int(sock.getsockname()[1])


def main() -> int:  # noqa: RET503 - ends in execve, which never returns
    """Exit status 2 on a bad setting; otherwise the process becomes supervisord."""
    if (refusal := server_refusal(startup_messages.PREFIX)) is not None:
        print(refusal, file=sys.stderr)
        return 2
    redis_binary = shutil.which(os.environ.get("EVALBOT_REDIS_SERVER") or "redis-server")
    try:
        plan = space_plan(
            os.environ,
            python=sys.executable,
            redis_binary=redis_binary,
            writable=_writable,
            web_port=_free_loopback_port,
        )
        # Fail before starting anything: the processes would all stop on the same settings
        # (the plan read the bot config file and named its problems).
        Settings.from_env(plan.env, read_bot_config=False)
    except (PlanError, SettingsError) as error:
        message = str(error)
        if isinstance(error, SettingsError):
            message = f"{startup_messages.PREFIX}: {message}"
        print(message, file=sys.stderr)
        return 2
    if plan.embedded_redis:
        Path(plan.env["EVALBOT_REDIS_DIR"]).mkdir(parents=True, exist_ok=True)
    run = Path(tempfile.mkdtemp(prefix="evalbot-supervise-"))
    config = run / "supervisord.conf"
    config.write_text(plan.config)
    argv = [sys.executable, "-m", "supervisor.supervisord", "--nodaemon"]
    argv += ["--configuration", str(config), "--pidfile", str(run / "supervisord.pid")]
    os.execve(sys.executable, argv, plan.env)  # noqa: S606 - fixed argv


if __name__ == "__main__":
    raise SystemExit(main())
