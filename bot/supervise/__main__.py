"""`python -m bot.supervise`: the whole bot in one container (a Hugging Face Docker Space)."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

from bot.extras import server_refusal
from bot.logs import configure_logging
from bot.settings import Settings, SettingsError
from bot.supervise import texts
from bot.supervise.plan import PlanError, plan_from_env
from bot.supervise.runner import Supervisor


def _writable(folder: Path) -> bool:
    return folder.is_dir() and os.access(folder, os.W_OK)


def main() -> int:
    if (refusal := server_refusal(texts.PREFIX)) is not None:
        print(refusal, file=sys.stderr)
        return 2
    redis_binary = shutil.which(os.environ.get("EVALBOT_REDIS_SERVER") or "redis-server")
    try:
        plan = plan_from_env(
            os.environ, python=sys.executable, redis_binary=redis_binary, writable=_writable
        )
        # Fail before starting anything: the children would all die on the same settings.
        settings = Settings.from_env(plan.bot_env)
    except (PlanError, SettingsError) as error:
        message = str(error)
        if isinstance(error, SettingsError):
            message = f"{texts.PREFIX}: {message}"
        print(message, file=sys.stderr)
        return 2
    configure_logging(settings.log_level)
    return Supervisor(plan).run()


if __name__ == "__main__":
    raise SystemExit(main())
