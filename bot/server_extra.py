"""The `server` extra (`pip install 'evalbot[server]'`): whether its libraries are importable,
and the one line a server command prints when they are not (docs/operating.md#dependencies)."""

from __future__ import annotations

import sys
from importlib.util import find_spec

SERVER_INSTALL = "pip install 'evalbot[server]'"
#: The top-level modules of the distributions the extra adds (pyproject.toml, `server`); uvloop
#: is left out: it is optional on every platform (uvicorn runs without it).
SERVER_MODULES = (
    "starlette",
    "uvicorn",
    "celery",
    "kombu",
    "redis",
    "prometheus_client",
    "httptools",
    "jinja2",
    "markdown_it",
    "python_multipart",
    "authlib",
    "itsdangerous",
    "supervisor",
)


def missing_server_modules() -> list[str]:
    """The extra's modules this Python cannot import, in `SERVER_MODULES` order. One already
    imported counts as there (celery and kombu replace theirs with a lazy module, whose
    `__spec__` is None: `find_spec` raises on it)."""
    return [name for name in SERVER_MODULES if name not in sys.modules and find_spec(name) is None]


def server_refusal(command: str) -> str | None:
    """None when the extra is installed; else the line that names what to install."""
    missing = missing_server_modules()
    if not missing:
        return None
    return (
        f"{command}: this command needs the server extra ({', '.join(missing)} not installed):"
        f" {SERVER_INSTALL}"
    )
