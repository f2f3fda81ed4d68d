"""A Dockerfile read into instructions, and the image config they produce; no I/O.

Only the instructions and forms the check knows how to execute faithfully are accepted;
anything else raises `UnsupportedDockerfile`, so a change to the Dockerfile that this
interpreter would silently get wrong stops the check instead (an honest check or none).
"""

from __future__ import annotations

import json
import re
import shlex
from dataclasses import dataclass, field

SUPPORTED = frozenset(
    {
        "FROM",
        "ENV",
        "RUN",
        "WORKDIR",
        "COPY",
        "USER",
        "EXPOSE",
        "HEALTHCHECK",
        "ENTRYPOINT",
        "CMD",
    }
)
_DURATION = re.compile(r"(\d+(?:\.\d+)?)(ms|s|m|h)")
_UNITS = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0}


class UnsupportedDockerfile(ValueError):
    """The Dockerfile uses something this interpreter does not execute."""


@dataclass(frozen=True, slots=True)
class Instruction:
    """One instruction: its keyword (upper case), its raw arguments, and its first line."""

    keyword: str
    arguments: str
    line: int

    def __str__(self) -> str:
        return f"{self.keyword} {self.arguments}"


@dataclass(frozen=True, slots=True)
class Healthcheck:
    """HEALTHCHECK's command (as Docker stores it: CMD or CMD-SHELL first) and its timings."""

    test: tuple[str, ...]
    interval_s: float = 30.0
    timeout_s: float = 30.0
    start_period_s: float = 0.0
    retries: int = 3


@dataclass(slots=True)
class ImageConfig:
    """What `docker inspect` would show of the image: the state the instructions leave."""

    env: dict[str, str] = field(default_factory=dict)
    workdir: str = "/"
    user: str = ""
    exposed: list[str] = field(default_factory=list)
    healthcheck: Healthcheck | None = None
    entrypoint: tuple[str, ...] = ()
    cmd: tuple[str, ...] = ()
    cmd_set_here: bool = False


def parse(text: str) -> list[Instruction]:
    """Split a Dockerfile into instructions (comments dropped, `\\` continuations joined)."""
    instructions: list[Instruction] = []
    pending: list[str] = []
    start = 0
    for number, raw in enumerate(text.splitlines(), start=1):
        stripped = raw.strip()
        if stripped.startswith("#"):
            if not instructions and not pending and re.match(r"#\s*escape\s*=", stripped):
                raise UnsupportedDockerfile(f"line {number}: the escape directive")
            continue  # Docker drops comment lines, inside a continuation too
        if not stripped and not pending:
            continue
        if not pending:
            start = number
        if stripped.endswith("\\"):
            pending.append(stripped[:-1].strip())
            continue
        pending.append(stripped)
        joined = " ".join(part for part in pending if part)
        pending = []
        keyword, _, arguments = joined.partition(" ")
        instructions.append(Instruction(keyword.upper(), arguments.strip(), start))
    if pending:
        raise UnsupportedDockerfile(f"line {start}: a continuation runs past the end of the file")
    for instruction in instructions:
        if instruction.keyword not in SUPPORTED:
            raise UnsupportedDockerfile(
                f"line {instruction.line}: {instruction.keyword} is not supported"
            )
    froms = [i for i in instructions if i.keyword == "FROM"]
    if len(froms) != 1 or instructions[0].keyword != "FROM":
        raise UnsupportedDockerfile("exactly one FROM, first: multi-stage builds are not supported")
    return instructions


def from_image(instruction: Instruction) -> str:
    words = instruction.arguments.split()
    if len(words) != 1 or words[0].startswith("--"):
        raise UnsupportedDockerfile(f"line {instruction.line}: FROM with flags or a stage name")
    return words[0]


def env_pairs(instruction: Instruction) -> list[tuple[str, str]]:
    """ENV's pairs: `k=v k2="v 2"` (several) or the legacy `k v` (one, the rest verbatim)."""
    _refuse_substitution(instruction)
    arguments = instruction.arguments
    first = arguments.split(None, 1)[0] if arguments else ""
    if "=" not in first:
        name, _, value = arguments.partition(" ")
        if not name or not value.strip():
            raise UnsupportedDockerfile(f"line {instruction.line}: ENV needs a value")
        return [(name, value.strip())]
    pairs: list[tuple[str, str]] = []
    for word in shlex.split(arguments, posix=True):
        name, equals, value = word.partition("=")
        if not equals or not name:
            raise UnsupportedDockerfile(f"line {instruction.line}: ENV word {word!r} has no '='")
        pairs.append((name, value))
    return pairs


def exec_form(instruction: Instruction, text: str | None = None) -> tuple[str, ...]:
    """A JSON array of strings (exec form); shell form is refused for ENTRYPOINT and CMD."""
    raw = instruction.arguments if text is None else text
    try:
        value = json.loads(raw)
    except json.JSONDecodeError:
        value = None
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise UnsupportedDockerfile(
            f"line {instruction.line}: {instruction.keyword} must be in exec form (a JSON array)"
        )
    return tuple(value)


def run_command(instruction: Instruction) -> str:
    """RUN's shell form; flags (`--mount`, `--network`) and the exec form are refused."""
    arguments = instruction.arguments
    if arguments.startswith("--") or arguments.startswith("["):
        raise UnsupportedDockerfile(f"line {instruction.line}: RUN flags or exec form")
    return arguments


def copy_arguments(instruction: Instruction) -> tuple[list[str], str]:
    """COPY's sources (context-relative) and destination; flags, globs, JSON are refused."""
    _refuse_substitution(instruction)
    arguments = instruction.arguments
    if arguments.startswith(("--", "[")):
        raise UnsupportedDockerfile(f"line {instruction.line}: COPY flags or JSON form")
    words = arguments.split()
    if len(words) < 2:
        raise UnsupportedDockerfile(f"line {instruction.line}: COPY needs a source and a dest")
    *sources, destination = words
    for source in sources:
        if any(char in source for char in "*?[") or ".." in source.split("/"):
            raise UnsupportedDockerfile(f"line {instruction.line}: COPY source {source!r}")
    return sources, destination


def single_word(instruction: Instruction) -> str:
    """WORKDIR's and USER's argument."""
    _refuse_substitution(instruction)
    words = instruction.arguments.split()
    if len(words) != 1:
        raise UnsupportedDockerfile(f"line {instruction.line}: {instruction.keyword} takes one")
    return words[0]


def expose_ports(instruction: Instruction) -> list[str]:
    _refuse_substitution(instruction)
    ports = instruction.arguments.split()
    for port in ports:
        if not re.fullmatch(r"\d+(/(tcp|udp))?", port):
            raise UnsupportedDockerfile(f"line {instruction.line}: EXPOSE {port!r}")
    return ports


def healthcheck(instruction: Instruction) -> Healthcheck | None:
    """HEALTHCHECK [options] CMD ... (exec or shell form), or NONE."""
    rest = instruction.arguments
    options: dict[str, str] = {}
    while rest.startswith("--"):
        option, _, rest = rest.partition(" ")
        name, equals, value = option[2:].partition("=")
        if not equals:
            raise UnsupportedDockerfile(f"line {instruction.line}: HEALTHCHECK --{name} value")
        options[name] = value
        rest = rest.strip()
    if rest.upper() == "NONE":
        return None
    keyword, _, command = rest.partition(" ")
    if keyword.upper() != "CMD":
        raise UnsupportedDockerfile(f"line {instruction.line}: HEALTHCHECK needs CMD or NONE")
    command = command.strip()
    test = (
        ("CMD", *exec_form(instruction, command))
        if command.startswith("[")
        else ("CMD-SHELL", command)
    )
    known = {"interval", "timeout", "start-period", "retries"}
    if set(options) - known:
        raise UnsupportedDockerfile(f"line {instruction.line}: HEALTHCHECK {sorted(options)}")
    return Healthcheck(
        test=test,
        interval_s=duration(options.get("interval", "30s")),
        timeout_s=duration(options.get("timeout", "30s")),
        start_period_s=duration(options.get("start-period", "0s")),
        retries=int(options.get("retries", "3")),
    )


def duration(text: str) -> float:
    """A Go duration as Docker and compose write them (`30s`, `1m30s`, `500ms`) in seconds."""
    position = 0
    total = 0.0
    for match in _DURATION.finditer(text):
        if match.start() != position:
            break
        total += float(match.group(1)) * _UNITS[match.group(2)]
        position = match.end()
    if position != len(text) or not text:
        raise ValueError(f"not a duration: {text!r}")
    return total


def _refuse_substitution(instruction: Instruction) -> None:
    if "$" in instruction.arguments:
        raise UnsupportedDockerfile(
            f"line {instruction.line}: {instruction.keyword} with variable substitution"
        )
