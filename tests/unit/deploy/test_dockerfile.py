"""The Dockerfile, parsed: a slim, non-root image with a health check and no baked-in secret."""

from __future__ import annotations

import json

from bot.supervise.plan import DEFAULT_PORT
from tests.conftest import REPO_ROOT
from tests.unit.deploy.files import (
    DOCKERFILE,
    SECRET_NAME,
    SPACE_README,
    Instruction,
    dockerfile_instructions,
    env_assignments,
    front_matter,
)


def _all(keyword: str) -> list[Instruction]:
    return [item for item in dockerfile_instructions() if item.keyword == keyword]


def _exec_form(instruction: Instruction) -> list[str]:
    """JSON (exec) form, so signals reach the process and no shell re-parses arguments."""
    value = json.loads(instruction.arguments)
    assert isinstance(value, list)
    return [str(part) for part in value]


def test_base_image_is_python_311_slim() -> None:
    assert _all("FROM")[0].arguments == "python:3.11-slim"


def test_runs_as_a_non_root_user() -> None:
    users = _all("USER")
    assert users, "no USER: the container would run as root"
    assert users[-1].arguments not in ("root", "0", "0:0")
    instructions = dockerfile_instructions()
    last_user = max(i for i, item in enumerate(instructions) if item.keyword == "USER")
    assert all(item.keyword != "RUN" for item in instructions[last_user:]), (
        "everything after USER runs unprivileged; installs belong before it"
    )


def test_healthcheck_probes_the_receiver_with_a_module_that_exists() -> None:
    (healthcheck,) = _all("HEALTHCHECK")
    assert "--interval=" in healthcheck.arguments
    command = _exec_form(Instruction("CMD", healthcheck.arguments.split(" CMD ", 1)[1]))
    assert command == ["python", "-m", "bot.supervise.healthcheck"]
    assert (REPO_ROOT / "bot" / "supervise" / "healthcheck.py").is_file()


def test_no_secret_is_baked_into_env_or_arg() -> None:
    for item in _all("ENV"):
        for name in env_assignments(item.arguments):
            assert not SECRET_NAME.search(name), f"ENV {name} would bake a secret into the image"
            assert name != "REDIS_URL", "REDIS_URL may carry a password: set it at run time"
    for item in _all("ARG"):
        assert not SECRET_NAME.search(item.arguments), f"ARG {item.arguments} leaks into history"
    assert "hf_" not in DOCKERFILE.read_text()


def test_installs_the_server_lock_only_and_redis_for_the_space_mode() -> None:
    runs = " && ".join(item.arguments for item in _all("RUN"))
    # exactly the server lock, with hashes; the project itself resolves nothing
    assert "pip install --require-hashes -r requirements/server.txt" in runs
    assert "pip install --require-hashes -r requirements/build.txt" in runs
    assert "pip install --no-deps --no-build-isolation ." in runs
    assert "dev.txt" not in runs
    assert "[dev]" not in runs
    assert "-e " not in runs
    assert "redis-server" in runs
    assert "--no-install-recommends" in runs


def test_listens_where_the_space_routes_and_serves_by_default() -> None:
    assert _all("EXPOSE")[0].arguments == str(DEFAULT_PORT)
    assert front_matter(SPACE_README)["app_port"] == DEFAULT_PORT
    env = {k: v for item in _all("ENV") for k, v in env_assignments(item.arguments).items()}
    assert env["PORT"] == str(DEFAULT_PORT)
    command = _exec_form(_all("CMD")[-1])
    assert command[:2] == ["evalbot", "serve"]
    assert command[command.index("--port") + 1] == str(DEFAULT_PORT)
    assert command[command.index("--host") + 1] == "0.0.0.0"


def test_entrypoint_is_tini_and_the_copied_script() -> None:
    entrypoint = _exec_form(_all("ENTRYPOINT")[-1])
    assert entrypoint[:2] == ["tini", "--"]
    copies = [item.arguments.split() for item in _all("COPY")]
    assert ["deploy/space/entrypoint.sh", f"/usr/local/bin/{entrypoint[2]}"] in copies


def test_every_copied_source_exists_and_secrets_stay_out_of_the_context() -> None:
    for item in _all("COPY"):
        *sources, _destination = item.arguments.split()
        for source in sources:
            assert (REPO_ROOT / source).exists(), f"COPY {source}: not in the repository"
    ignored = (REPO_ROOT / ".dockerignore").read_text().splitlines()
    for name in (".env", ".git", ".venv"):
        assert name in ignored


def test_space_card_declares_a_docker_space() -> None:
    card = front_matter(SPACE_README)
    assert card["sdk"] == "docker"
    assert card["title"]
