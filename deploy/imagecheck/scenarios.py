"""The checks run on the built image: as uid 1000, the compose topology, the Space mode, stop.

Each scenario starts its containers in a network namespace of its own, with the Hub emulator
inside it, and stops every container in `finally` (SIGKILL for whatever a failed check left).
"""

from __future__ import annotations

import re
import secrets
import shutil
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx2
import yaml

from deploy.imagecheck import compose, netns
from deploy.imagecheck.compose import Service
from deploy.imagecheck.container import (
    Container,
    ContainerSpec,
    processes_rooted_under,
    resolve_user,
)
from deploy.imagecheck.dockerfile import ImageConfig
from deploy.imagecheck.hub import ScenarioHub
from deploy.imagecheck.report import Report, say
from evalbot_dev.devstack.workload import BOT, BOT_TOKEN

#: The compose services whose `image:` the built image's rootfs stands in for besides its
#: own: redis:7 runs Debian's redis-server 7.0 (installed in the image for the Space mode) as
#: Debian's `redis` user with /data as its working directory, like the official image.
REDIS_STAND_IN = "redis:7"
RECEIVER_PORT = 7860
DOCKER_STOP_GRACE_S = 10.0


@dataclass
class Image:
    rootfs: Path
    config: ImageConfig
    project: Path  # the checkout: compose's project directory (a clone, as deploy.md says)
    upload: Path  # the Space repository's files: the build context, the Space's card
    runs: Path  # where containers keep their layers and logs

    def spec(
        self,
        name: str,
        argv: Sequence[str] | None = None,
        env: dict[str, str] | None = None,
        **options: object,
    ) -> ContainerSpec:
        command = list(argv) if argv is not None else [*self.config.entrypoint, *self.config.cmd]
        return ContainerSpec(
            name=name,
            rootfs=self.rootfs,
            argv=command,
            env={**self.config.env, **(env or {})},
            user=str(options.pop("user", self.config.user)),
            cwd=str(options.pop("cwd", self.config.workdir)),
            **options,  # type: ignore[arg-type]
        )

    def container(self, spec: ContainerSpec) -> Container:
        return Container(spec, self.runs / spec.name)


def one_off(image: Image, name: str, argv: Sequence[str], timeout: float = 60) -> tuple[int, str]:
    """`docker run --rm IMAGE argv`: exit code and output."""
    container = image.container(image.spec(name, argv))
    container.start()
    try:
        code = container.wait(timeout=timeout)
    finally:
        container.kill()
    return code, container.output()


# -- as uid 1000 ------------------------------------------------------------------------------

#: What the bot writes as uid 1000: the embedded Redis's AOF (var/ under WORKDIR), HF_HOME's
#: default (~/.cache), temporary files.
WRITABLE = ("/app/var", "/home/evalbot", "/tmp")  # noqa: S108 - a path inside the container
#: Code and config: `@pkg` is where `import pkg` resolves outside /app (the installed copy).
NOT_WRITABLE = ("/app", "/app/config", "/usr/local/bin", "@bot", "@workers")
PROBE = """
for target in "$@"; do
  case "$target" in
    @*) target=$(cd / && python -c "import ${target#@} as m; print(m.__path__[0])");;
  esac
  if touch "$target/.imagecheck-probe" 2>/dev/null; then
    rm -f "$target/.imagecheck-probe"; echo "writable $target"
  else echo "read-only $target"; fi
done
"""


def check_user(image: Image, report: Report) -> None:
    credentials = resolve_user(image.rootfs, image.config.user)
    report.check(
        "user",
        credentials.uid == 1000,
        f"USER {image.config.user} is uid {credentials.uid}, gid {credentials.gid}",
    )
    started = time.monotonic()
    code, output = one_off(image, "help", [*image.config.entrypoint, "evalbot", "--help"])
    report.check(
        "evalbot --help",
        code == 0 and "usage: evalbot" in output,
        f"exit {code} in {time.monotonic() - started:.1f}s through the ENTRYPOINT, as uid 1000"
        + ("" if code == 0 else f"\n{output[-2000:]}"),
    )
    code, output = one_off(
        image, "probe", ["/bin/sh", "-c", PROBE, "probe", *WRITABLE, *NOT_WRITABLE]
    )
    lines: dict[str, str] = {}
    for line in output.splitlines():
        state, _, path = line.partition(" ")
        if state in ("writable", "read-only"):
            lines[path] = state
    wrong = [path for path, state in lines.items() if (state == "writable") != (path in WRITABLE)]
    report.check(
        "writable as uid 1000",
        code == 0 and len(lines) == len(WRITABLE) + len(NOT_WRITABLE) and not wrong,
        "; ".join(f"{state} {path}" for path, state in lines.items())
        + (f" (wrong: {wrong})" if wrong else "")
        + ("" if code == 0 else f"\n{output[-2000:]}"),
    )
    # From WORKDIR, as `python -m bot.supervise` runs: the installed copy, not a second one.
    code, output = one_off(
        image,
        "code",
        [
            "/bin/sh",
            "-c",
            "cd \"${0}\" && python -c 'import bot, workers; print(bot.__file__, workers.__file__)'",
            image.config.workdir or "/",
        ],
    )
    paths = output.split()[-2:]
    workdir = (image.config.workdir or "/").rstrip("/") + "/"
    report.check(
        "one copy of the code",
        code == 0 and len(paths) == 2 and not any(path.startswith(workdir) for path in paths),
        f"from {image.config.workdir or '/'}: "
        + " ".join(paths)
        + ("" if code == 0 else f"\n{output[-2000:]}"),
    )


# -- compose ----------------------------------------------------------------------------------


def fill_dot_env(example: str, overrides: dict[str, str]) -> str:
    """.env.example with the test's values put in place of the placeholders."""
    text = example
    for name, value in overrides.items():
        text, count = re.subn(rf"(?m)^{name}=.*$", f"{name}={value}", text)
        if count != 1:
            raise ValueError(f".env.example has {count} lines for {name}")
    return text


@contextmanager
def started(containers: list[tuple[Container, float]]) -> Iterator[None]:
    """Kill whatever is still running on the way out (a failed check stops nothing itself)."""
    try:
        yield
    finally:
        for container, _ in reversed(containers):
            container.kill()


def wait_healthy(container: Container, test: tuple[str, ...], timeout: float) -> float:
    started_at = time.monotonic()
    deadline = started_at + timeout
    last = ""
    while time.monotonic() < deadline:
        if container.process_exited():
            raise RuntimeError(f"{container.spec.name} exited:\n{container.output()[-3000:]}")
        result = container.exec(compose.healthcheck_argv(test), timeout=30)
        if result.returncode == 0:
            return time.monotonic() - started_at
        last = (result.stdout + result.stderr).decode(errors="replace")[-500:]
        time.sleep(0.5)  # a health probe's own interval, not a wait for work
    raise RuntimeError(f"{container.spec.name} not healthy in {timeout}s: {last}")


def service_spec(  # noqa: PLR0917
    image: Image,
    service: Service,
    index: int,
    env: dict[str, str],
    volumes: dict[str, Path],
    namespace: str,
) -> ContainerSpec:
    name = f"{service.name}-{index}"
    binds = []
    for volume in service.volumes:
        binds.append((volumes[volume.source], volume.target, volume.read_only))
    common = {"netns": namespace, "binds": binds, "extra_hosts": {"redis": "127.0.0.1"}}
    if service.image == REDIS_STAND_IN:
        return image.spec(name, service.command, {}, user="redis", cwd="/data", **common)
    if not service.builds:
        raise ValueError(f"service {service.name}: image {service.image} has no stand-in")
    command = [*image.config.entrypoint, *(service.command or image.config.cmd)]
    return image.spec(name, command, env, **common)


def check_compose(image: Image, report: Report) -> None:
    project = image.project
    work = image.runs / "compose"
    with (
        netns.scenario_namespace("compose") as namespace,
        netns.entered(namespace),
        ScenarioHub() as hub,
    ):
        secret = secrets.token_urlsafe(32)
        dot_env = fill_dot_env(
            (project / ".env.example").read_text(),
            {
                "HF_TOKEN": BOT_TOKEN,
                "EVALBOT_WEBHOOK_SECRET": secret,
                "EVALBOT_BOT_NAME": BOT,
                "HF_ENDPOINT": hub.url,
            },
        )
        services = compose.load(
            (project / "docker-compose.yml").read_text(), {".env": dot_env}, shell={}
        )
        by_name = {service.name: service for service in services}
        _static_compose_checks(image, services, report)
        config_dir = work / "config"
        hub.write_config(project / "config", config_dir)
        redis_data = work / "volumes" / "redis-data"
        redis_data.mkdir(parents=True, exist_ok=True)
        redis_user = resolve_user(image.rootfs, "redis")
        shutil.chown(redis_data, redis_user.uid, redis_user.gid)
        volumes = {"./config": config_dir, "redis-data": redis_data}
        order = _start_order(services)
        running: list[tuple[Container, float]] = []
        containers: dict[str, list[Container]] = {}
        with started(running):
            for name in order:
                service = by_name[name]
                for index in range(1, service.replicas + 1):
                    env = dict(service.environment)
                    spec = service_spec(image, service, index, env, volumes, namespace)
                    container = image.container(spec).start()
                    running.append((container, service.stop_grace_s))
                    containers.setdefault(name, []).append(container)
                if service.healthcheck is not None and any(
                    name in other.depends_on for other in services
                ):
                    for container in containers[name]:
                        seconds = wait_healthy(container, service.healthcheck.test, 60)
                        say(f"   {container.spec.name} healthy after {seconds:.1f}s")
            say("   started: " + ", ".join(c.spec.name for c, _ in running))
            receiver = containers["receiver"][0]
            receiver_check = by_name["receiver"].healthcheck
            if receiver_check is None:
                raise ValueError("the receiver service has no healthcheck to wait on")
            wait_healthy(receiver, receiver_check.test, 60)  # before the Hub sends anything
            _check_listening(receiver.init_pid, {RECEIVER_PORT: "receiver", 6379: "redis"}, report)
            hub.add_webhook(f"http://127.0.0.1:{RECEIVER_PORT}", secret)
            _check_pr(hub, report, "compose: signed PR", running)
            for name in order:
                service = by_name[name]
                for container in containers[name]:
                    _check_health(container, service, image, report)
            _check_stop(running, image.runs, report, "compose")
            aof = redis_data / "appendonlydir"
            owner = aof.stat().st_uid if aof.exists() else None
            report.check(
                "compose: redis AOF",
                owner == redis_user.uid and any(aof.glob("*.aof")),
                f"{sorted(p.name for p in aof.glob('*'))} on the redis-data volume,"
                f" owner uid {owner}",
            )


def listening_addresses(tables: dict[str, str]) -> dict[int, set[str]]:
    """Port -> addresses listened on, from /proc/net/tcp and tcp6 (hex, state 0A = LISTEN)."""
    found: dict[int, set[str]] = {}
    for family, text in tables.items():
        for line in text.splitlines()[1:]:
            fields = line.split()
            if len(fields) < 4 or fields[3] != "0A":
                continue
            address, _, port = fields[1].partition(":")
            if family == "tcp":
                readable = ".".join(str(b) for b in reversed(bytes.fromhex(address)))
            else:
                readable = "::" if int(address, 16) == 0 else address
            found.setdefault(int(port, 16), set()).add(readable)
    return found


def _check_listening(pid: int, ports: dict[int, str], report: Report) -> None:
    """In Docker each container has its own network: the receiver must listen on every
    address for the port mapping (8000:7860) to reach it, and Redis for the other containers.
    The shared namespace here would hide a loopback-only bind, so check the binds."""
    tables = {family: Path(f"/proc/{pid}/net/{family}").read_text() for family in ("tcp", "tcp6")}
    listening = listening_addresses(tables)
    for port, service in ports.items():
        addresses = listening.get(port, set())
        report.check(
            f"compose: {service} listens on all addresses",
            bool(addresses & {"0.0.0.0", "::"}),  # noqa: S104 - what a container must do
            f"port {port}: {sorted(addresses) or 'not listening'}",
        )


def _static_compose_checks(image: Image, services: list[Service], report: Report) -> None:
    worker = next((s for s in services if s.name == "worker"), None)
    report.check(
        "compose: workers",
        worker is not None and worker.replicas == 2,
        f"worker replicas {worker.replicas if worker else None}",
    )
    # A service without a healthcheck of its own inherits the image's HEALTHCHECK, which
    # probes the receiver's port in its own container: only a receiver can pass it. (Here
    # every container shares one network namespace, so it would pass for the wrong reason.)
    inheriting = [
        s.name
        for s in services
        if s.builds
        and s.healthcheck is None
        and not s.disables_healthcheck
        and image.config.healthcheck is not None
        and s.command[:2] != ("evalbot", "serve")
    ]
    report.check(
        "compose: healthchecks",
        not inheriting,
        "every non-receiver service has its own healthcheck or disables the image's"
        if not inheriting
        else f"{inheriting} inherit the image's HEALTHCHECK (a receiver probe): always unhealthy",
    )


def _start_order(services: list[Service]) -> list[str]:
    order: list[str] = []
    pending = {s.name: set(s.depends_on) for s in services}
    while pending:
        ready = sorted(name for name, deps in pending.items() if deps <= set(order))
        if not ready:
            raise ValueError(f"depends_on cycle among {sorted(pending)}")
        order.extend(ready)
        for name in ready:
            del pending[name]
    return order


def _check_pr(
    hub: ScenarioHub,
    report: Report,
    name: str,
    running: list[tuple[Container, float]],
    index: int = 1,
) -> None:
    started_at = time.monotonic()
    num = hub.open_signed_pr(index)
    try:
        comment = hub.wait_for_verified_report(num, timeout=90)
    except AssertionError as error:
        logs = "\n".join(f"--- {c.spec.name}\n{c.output()[-3000:]}" for c, _ in running)
        report.check(name, False, f"{error}\n{logs}")
        return
    reports = hub.reports(num)
    report.check(
        name,
        len(reports) == 1,
        f"PR #{num}: {len(reports)} report comment with a verified badge,"
        f" {time.monotonic() - started_at:.1f}s from opening"
        + ("" if len(reports) == 1 else f"\n{comment}"),
    )


def _check_health(container: Container, service: Service, image: Image, report: Report) -> None:
    if service.healthcheck is None:
        report.check(
            f"healthcheck {container.spec.name}",
            service.disables_healthcheck,
            "disabled in the compose file" if service.disables_healthcheck else "none",
        )
        return
    tests = [("compose", service.healthcheck.test)]
    if service.command[:2] == ("evalbot", "serve") and image.config.healthcheck is not None:
        tests.append(("Dockerfile HEALTHCHECK", image.config.healthcheck.test))
    for label, test in tests:
        started_at = time.monotonic()
        result = container.exec(
            compose.healthcheck_argv(test), timeout=service.healthcheck.timeout_s + 5
        )
        seconds = time.monotonic() - started_at
        output = (result.stdout + result.stderr).decode(errors="replace").strip()
        report.check(
            f"healthcheck {container.spec.name} ({label})",
            result.returncode == 0 and seconds <= service.healthcheck.timeout_s,
            f"{' '.join(test)} -> exit {result.returncode} in {seconds:.1f}s"
            f" (timeout {service.healthcheck.timeout_s:g}s)"
            + ("" if result.returncode == 0 else f": {output[-500:]}"),
        )


def _check_stop(
    running: list[tuple[Container, float]], runs: Path, report: Report, scenario: str
) -> None:
    """`docker compose down`: stop in reverse start order, each within its grace period; then
    no process may have its root under `runs` (where every container's root lives)."""
    before = processes_rooted_under(runs)
    for container, grace in reversed(running):
        code, seconds = container.stop(grace)
        report.check(
            f"stop {container.spec.name}",
            seconds < grace and code in (0, 143),
            f"SIGTERM to tini: exit {code} after {seconds:.1f}s (grace {grace:g}s)"
            + (" (uvicorn re-raises SIGTERM after its graceful shutdown)" if code == 143 else "")
            + ("" if code in (0, 143) else f"\n{container.output()[-2000:]}"),
        )
    left = processes_rooted_under(runs)
    report.check(
        f"{scenario}: nothing left",
        bool(before) and not left,
        f"{len(before)} processes rooted in the containers before the stop, {len(left)} after"
        + (f": {left}" if left else ""),
    )


# -- Space mode -------------------------------------------------------------------------------


SPACE_HOST = "imagecheck-evalbot.hf.space"
#: What the status page shows a signed-in operator only.
OPERATOR_VIEW = "Parked events"


def space_card(readme: Path) -> dict[str, Any]:
    """The YAML front matter of the Space's README.md (its card), as the Hub reads it."""
    text = readme.read_text()
    if not text.startswith("---\n") or "\n---\n" not in text[3:]:
        raise ValueError(f"{readme}: no YAML front matter (the Space's card)")
    card = yaml.safe_load(text[4 : text.index("\n---\n", 3)])
    if not isinstance(card, dict):
        raise ValueError(f"{readme}: the front matter is not a mapping")
    return card


def _cookie(answer: httpx2.Response, name: str) -> str:
    """`name=value` of a Set-Cookie the answer carries (a Secure cookie too: the check talks
    plain http to the port the Space's https proxy would)."""
    for header in answer.headers.get_list("set-cookie"):
        pair = header.split(";", 1)[0].strip()
        if pair.startswith(f"{name}=") and pair != f"{name}=":
            return pair
    raise AssertionError(f"no {name} cookie in the answer ({answer.status_code})")


def _check_operator_signin(hub: ScenarioHub, report: Report) -> None:
    """ "Sign in with Hugging Face" through the Space's port, with the OAuth variables the
    Hub sets for `hf_oauth: true`: the operator listed in config/ ends on the operator view."""
    base = f"http://127.0.0.1:{RECEIVER_PORT}"
    try:
        with httpx2.Client(timeout=20, follow_redirects=False) as browser:
            start = browser.get(f"{base}/login")
            authorize = start.headers.get("location", "")
            if start.status_code != 303 or not authorize.startswith(f"{hub.url}/oauth/authorize"):
                raise AssertionError(f"/login answered {start.status_code}: {authorize[:200]}")
            state_cookie = _cookie(start, "evalbot_signin")
            callback = urlsplit(hub.consent(authorize))
            if callback.netloc != SPACE_HOST:
                raise AssertionError(f"the Hub sent the browser to {callback.netloc}")
            done = browser.get(
                f"{base}{callback.path}?{callback.query}", headers={"cookie": state_cookie}
            )
            if done.status_code != 303:
                raise AssertionError(f"the callback answered {done.status_code}: {done.text[:300]}")
            session = _cookie(done, "evalbot_admin")
            page = browser.get(f"{base}/status", headers={"cookie": session})
            stranger = browser.get(f"{base}/status")
    except (AssertionError, httpx2.HTTPError) as problem:
        report.check("space: operator sign-in", False, f"{type(problem).__name__}: {problem}")
        return
    report.check(
        "space: operator sign-in",
        OPERATOR_VIEW in page.text and OPERATOR_VIEW not in stranger.text,
        f"hf_oauth: /login -> the Hub -> {callback.path}: 303, the operator view shown to the"
        " signed-in operator and not to another visitor",
    )


PS = 'for p in /proc/[0-9]*; do printf "%s " "${p#/proc/}"; tr "\\0" " " < "$p/cmdline"; echo; done'


def _commands(listing: str) -> dict[int, str]:
    """PID -> command line, from PS's output (the shell that ran it left out)."""
    commands = {}
    for line in listing.splitlines():
        pid, _, command = line.strip().partition(" ")
        if pid.isdigit() and command.strip() and "/proc/[0-9]*" not in command:
            commands[int(pid)] = command.strip()
    return commands


def check_space(image: Image, report: Report) -> None:
    work = image.runs / "space"
    with (
        netns.scenario_namespace("space") as namespace,
        netns.entered(namespace),
        ScenarioHub() as hub,
    ):
        secret = secrets.token_urlsafe(32)
        config_dir = work / "config"
        # What the Space holds: the uploaded config/ and card (README.md), as the Hub reads it.
        card = space_card(image.upload / "README.md")
        oauth = card.get("hf_oauth") is True
        hub.write_config(image.upload / "config", config_dir, operator=oauth)
        env = {
            "SPACE_ID": "imagecheck/evalbot",
            "SPACE_HOST": SPACE_HOST,
            "HF_TOKEN": BOT_TOKEN,
            "EVALBOT_WEBHOOK_SECRET": secret,
            "EVALBOT_BOT_NAME": BOT,
            "HF_ENDPOINT": hub.url,
        }
        if oauth:  # the Hub makes the Space's OAuth app and sets its variables
            env.update(hub.oauth_app(f"https://{SPACE_HOST}/login/callback"))
        spec = image.spec(
            "space", None, env, netns=namespace, binds=[(config_dir, "/app/config", True)]
        )
        container = image.container(spec).start()
        running = [(container, DOCKER_STOP_GRACE_S)]
        with started(running):
            assert image.config.healthcheck is not None
            seconds = wait_healthy(container, image.config.healthcheck.test, 60)
            report.check("space: HEALTHCHECK", True, f"healthy {seconds:.1f}s after start")
            # The slim image has no ps: read the command lines from the container's /proc.
            ps = container.exec(["/bin/sh", "-c", PS], timeout=10)
            commands = _commands(ps.stdout.decode(errors="replace"))
            wanted = (
                "supervisor.supervisord",
                "redis-server",
                "bot serve",
                "bot web",
                "bot beat",
                "bot worker",
            )
            report.check(
                "space: supervisor",
                commands.get(1, "").startswith("tini")
                and all(any(w in c for c in commands.values()) for w in wanted),
                "; ".join(f"{pid}: {command[:70]}" for pid, command in sorted(commands.items()))
                if ps.returncode == 0
                else f"ps failed: {ps.stderr!r}",
            )
            report.check(
                "space: card",
                card.get("sdk") == "docker" and card.get("app_port") == RECEIVER_PORT,
                f"sdk {card.get('sdk')!r}, app_port {card.get('app_port')!r},"
                f" hf_oauth {card.get('hf_oauth')!r}",
            )
            if oauth:
                _check_operator_signin(hub, report)
            hub.add_webhook(f"http://127.0.0.1:{RECEIVER_PORT}", secret)
            _check_pr(hub, report, "space: signed PR", running)
            _check_stop(running, image.runs, report, "space")
            # No /data volume: the embedded Redis keeps its AOF in var/redis under WORKDIR,
            # in the container's writable layer (docs/deploy.md, EVALBOT_REDIS_DIR).
            aof = container.state_dir / "upper" / "app" / "var" / "redis" / "appendonlydir"
            files = sorted(p.name for p in aof.glob("*")) if aof.exists() else []
            report.check(
                "space: redis AOF",
                any(name.endswith(".aof") for name in files),
                f"/app/var/redis/appendonlydir: {files}",
            )
