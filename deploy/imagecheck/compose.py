"""docker-compose.yml read as `docker compose` reads it, for the services the check starts.

Pure: the YAML text, the `.env` text and the shell's variables in, `Service`s out. YAML
merge keys (`<<: *evalbot`) are PyYAML's; interpolation (`${VAR:-default}`, `$$`) follows the
compose specification, with `.env` providing the variables as it does for `docker compose`.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import yaml

from deploy.imagecheck.dockerfile import duration

#: Docker's default when a service sets no `stop_grace_period`.
DEFAULT_STOP_GRACE_S = 10.0
_VARIABLE = re.compile(
    r"\$(?:(?P<escaped>\$)|\{(?P<braced>[A-Za-z_][A-Za-z0-9_]*)(?P<op>:?[-?+])?(?P<arg>[^}]*)\}"
    r"|(?P<named>[A-Za-z_][A-Za-z0-9_]*))"
)


class ComposeError(ValueError):
    """The compose file uses something the check does not interpret."""


@dataclass(frozen=True, slots=True)
class ComposeHealthcheck:
    test: tuple[str, ...]  # "CMD", argv... or "CMD-SHELL", command
    interval_s: float
    timeout_s: float
    retries: int
    start_period_s: float


@dataclass(frozen=True, slots=True)
class Volume:
    source: str  # a named volume or a path relative to the project directory
    target: str
    read_only: bool

    @property
    def named(self) -> bool:
        return not self.source.startswith((".", "/"))


@dataclass(frozen=True, slots=True)
class Service:
    name: str
    image: str
    builds: bool  # `build:` set: the image is the project's Dockerfile
    command: tuple[str, ...]
    environment: dict[str, str]  # env_file values, then `environment:` over them
    healthcheck: ComposeHealthcheck | None
    replicas: int
    stop_grace_s: float
    volumes: tuple[Volume, ...]
    depends_on: tuple[str, ...] = field(default=())
    #: `healthcheck: {disable: true}`: no check at all, not even the image's HEALTHCHECK.
    disables_healthcheck: bool = False


def parse_env_file(text: str) -> dict[str, str]:
    """A `.env` file: `KEY=VALUE` lines, `#` comments, optional quotes and `export`."""
    values: dict[str, str] = {}
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        line = line.removeprefix("export ").strip()
        name, equals, value = line.partition("=")
        if not equals:
            raise ComposeError(f".env line without '=': {raw!r}")
        value = value.strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
            value = value[1:-1]
        else:
            value = re.split(r"\s+#", value, maxsplit=1)[0]
        values[name.strip()] = value
    return values


def interpolate(text: str, variables: Mapping[str, str]) -> str:
    """Compose's variable substitution in one string."""

    def replace(match: re.Match[str]) -> str:
        if match.group("escaped"):
            return "$"
        name = match.group("named") or match.group("braced")
        value = variables.get(name)
        op, arg = match.group("op"), match.group("arg") or ""
        if op is None:
            if arg:
                raise ComposeError(f"unsupported substitution {match.group(0)!r}")
            return value or ""
        unset = value is None or (op.startswith(":") and value == "")
        if op.endswith("-"):
            return arg if unset else str(value)
        if op.endswith("+"):
            return "" if unset else arg
        if unset:
            raise ComposeError(f"required variable {name}: {arg}")
        return str(value)

    return _VARIABLE.sub(replace, text)


def _interpolate_tree(node: Any, variables: Mapping[str, str]) -> Any:
    if isinstance(node, str):
        return interpolate(node, variables)
    if isinstance(node, list):
        return [_interpolate_tree(item, variables) for item in node]
    if isinstance(node, dict):
        return {key: _interpolate_tree(value, variables) for key, value in node.items()}
    return node


def load(
    compose_text: str, env_files: Mapping[str, str], shell: Mapping[str, str]
) -> list[Service]:
    """The services `docker compose up` starts from `compose_text`; `env_files` maps each
    `env_file` name to its text (the project's `.env` is also the interpolation source, after
    the shell's variables). Services under a `profiles:` key start only when their profile is
    asked for (`--profile`), so they are left out, as compose leaves them out."""
    document = yaml.safe_load(compose_text)
    dot_env = parse_env_file(env_files.get(".env", ""))
    variables = {**dot_env, **shell}  # the shell wins over .env, as in docker compose
    services = _interpolate_tree(document.get("services") or {}, variables)
    return [
        _service(name, body, env_files, shell)
        for name, body in services.items()
        if isinstance(body, dict) and not body.get("profiles")
    ]


def _service(
    name: str, body: dict[str, Any], env_files: Mapping[str, str], shell: Mapping[str, str]
) -> Service:
    known = {
        "image", "build", "command", "environment", "env_file", "healthcheck", "deploy",
        "stop_grace_period", "volumes", "depends_on", "restart", "ports",
    }  # fmt: skip
    unknown = set(body) - known
    if unknown:
        raise ComposeError(f"service {name}: keys the check does not interpret: {sorted(unknown)}")
    environment: dict[str, str] = {}
    files = body.get("env_file") or []
    for file_name in [files] if isinstance(files, str) else files:
        if file_name not in env_files:
            raise ComposeError(f"service {name}: env_file {file_name} not given")
        environment.update(parse_env_file(env_files[file_name]))
    environment.update(_environment(body.get("environment"), shell))
    command = body.get("command") or ()
    if isinstance(command, str):
        command = shlex.split(command)
    deploy = body.get("deploy") or {}
    grace = body.get("stop_grace_period")
    depends = body.get("depends_on") or ()
    return Service(
        name=name,
        image=str(body.get("image", "")),
        builds="build" in body,
        command=tuple(str(word) for word in command),
        environment=environment,
        healthcheck=_healthcheck(name, body.get("healthcheck")),
        replicas=int(deploy.get("replicas", 1)),
        stop_grace_s=duration(str(grace)) if grace else DEFAULT_STOP_GRACE_S,
        volumes=tuple(_volume(name, spec) for spec in body.get("volumes") or ()),
        depends_on=tuple(depends),
        disables_healthcheck=bool((body.get("healthcheck") or {}).get("disable")),
    )


def _environment(node: Any, shell: Mapping[str, str]) -> dict[str, str]:
    if node is None:
        return {}
    if isinstance(node, list):
        pairs = [str(item).partition("=") for item in node]
        return {k: v if eq else shell.get(k, "") for k, eq, v in pairs}
    return {str(k): shell.get(str(k), "") if v is None else str(v) for k, v in node.items()}


def _volume(service: str, spec: Any) -> Volume:
    if not isinstance(spec, str):
        raise ComposeError(f"service {service}: only short volume syntax is interpreted")
    parts = spec.split(":")
    if len(parts) == 2:
        return Volume(parts[0], parts[1], read_only=False)
    if len(parts) == 3 and parts[2] in ("ro", "rw"):
        return Volume(parts[0], parts[1], read_only=parts[2] == "ro")
    raise ComposeError(f"service {service}: volume {spec!r}")


def _healthcheck(service: str, node: Any) -> ComposeHealthcheck | None:
    if not node or node.get("disable"):
        return None
    test = node["test"]
    if isinstance(test, str):
        test = ["CMD-SHELL", test]
    if test[0] not in ("CMD", "CMD-SHELL") or (test[0] == "CMD-SHELL" and len(test) != 2):
        raise ComposeError(f"service {service}: healthcheck test {test!r}")
    return ComposeHealthcheck(
        test=tuple(str(word) for word in test),
        interval_s=duration(str(node.get("interval", "30s"))),
        timeout_s=duration(str(node.get("timeout", "30s"))),
        retries=int(node.get("retries", 3)),
        start_period_s=duration(str(node.get("start_period", "0s"))),
    )


def healthcheck_argv(test: tuple[str, ...]) -> tuple[str, ...]:
    """What Docker executes for a healthcheck test (CMD-SHELL goes through `/bin/sh -c`)."""
    if test[0] == "CMD-SHELL":
        return ("/bin/sh", "-c", test[1])
    return test[1:]
