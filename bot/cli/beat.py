"""`evalbot beat`: the Celery beat that sends the reconciliation task, one per deployment
(docs/operating.md, "Reconciliation")."""

from __future__ import annotations

import argparse
import os
import sys

from bot.cli import command_texts


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "beat", help=command_texts.BEAT_HELP, description=command_texts.BEAT_DESCRIPTION
    )
    parser.set_defaults(run=run, needs_server=True)


def run(args: argparse.Namespace) -> int:
    from bot.logs import configure_logging
    from bot.settings import Settings, SettingsError
    from workers.app import create_celery_app

    try:
        settings = Settings.from_env(os.environ)  # docs/operating.md, "Start-up checks"
    except SettingsError as error:
        print(f"evalbot beat: {error}", file=sys.stderr)
        return 2
    if settings.reconcile_interval_s == 0:
        print(command_texts.RECONCILE_DISABLED.format(command="beat"), file=sys.stderr)
        return 2
    configure_logging(settings.log_level)
    app = create_celery_app(settings)
    app.Beat(loglevel=settings.log_level, quiet=True).run()  # returns when beat stops
    return 0
