"""What docs/deploy.md uploads to a Space holds every file the image's build and entry point
read: each `COPY`/`ADD` source of the Dockerfile, the readme `pyproject.toml` names, and each
module the entry point, the `CMD` and the `HEALTHCHECK` run. The upload set is read from the
doc's own snippet and replayed with huggingface_hub's filter (`deploy.imagecheck.uploadset`),
the same set the image check builds from; no file list is written here."""

from __future__ import annotations

import json
import re
import shlex
import tomllib
from pathlib import Path, PurePosixPath

from bot.web.guards import ADMIN_COOKIE_TTL_S
from deploy.imagecheck import dockerignore, uploadset
from tests.conftest import REPO_ROOT
from tests.unit.deploy.files import (
    DOCKERFILE,
    ENTRYPOINT,
    SPACE_README,
    dockerfile_instructions,
    front_matter,
)


def copied_sources(dockerfile: Path = DOCKERFILE) -> list[str]:
    """Every source path of the Dockerfile's COPY and ADD instructions (flags left out)."""
    sources: list[str] = []
    for item in dockerfile_instructions(dockerfile):
        if item.keyword not in ("COPY", "ADD"):
            continue
        arguments = item.arguments
        words = json.loads(arguments) if arguments.startswith("[") else shlex.split(arguments)
        words = [word for word in words if not word.startswith("--")]
        assert len(words) >= 2, f"{item.keyword} {arguments}: no source"
        sources.extend(words[:-1])
    return sources


def run_modules(dockerfile: Path = DOCKERFILE, entrypoint: Path = ENTRYPOINT) -> list[str]:
    """The modules `python -m` runs in the entry point script and the Dockerfile's commands."""
    texts = [entrypoint.read_text()] + [
        item.arguments
        for item in dockerfile_instructions(dockerfile)
        if item.keyword in ("CMD", "ENTRYPOINT", "HEALTHCHECK", "RUN")
    ]
    found: list[str] = []
    for text in texts:
        found += re.findall(r"-m\W+([A-Za-z_][\w.]*)", text)
    return found


def needed_by_the_build(tracked: list[str]) -> dict[str, str]:
    """Each tracked file the build and the entry point read, with why."""
    context = dockerignore.parse((REPO_ROOT / ".dockerignore").read_text())
    needed: dict[str, str] = {}
    for source in copied_sources():
        prefix = str(PurePosixPath(source))
        under = [
            name
            for name in tracked
            if (name == prefix or name.startswith(prefix + "/"))
            and not dockerignore.excluded(name, context)
        ]
        assert under, f"COPY {source}: no tracked file there"
        needed.update(dict.fromkeys(under, f"COPY {source}"))
    project = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())["project"]
    needed[project["readme"]] = "pyproject.toml's readme (pip install . reads it)"
    for module in run_modules():
        path = module.replace(".", "/")
        candidates = [f"{path}.py", f"{path}/__main__.py"]
        match = next((name for name in candidates if name in tracked), None)
        assert match, f"python -m {module}: no tracked module file ({candidates})"
        needed[match] = f"python -m {module}"
    return needed


def test_every_file_the_image_build_and_entry_point_read_is_uploaded() -> None:
    uploaded = uploadset.read_upload_set(REPO_ROOT)
    needed = needed_by_the_build(uploadset.tracked_files(REPO_ROOT))
    missing = {name: why for name, why in needed.items() if name not in uploaded}
    assert not missing, (
        f"docs/deploy.md's upload snippet leaves out files the Space's build needs: {missing}"
    )


def test_the_copied_lock_files_are_among_the_needed_files() -> None:
    """The Dockerfile's own COPY lines say which locks the image installs (whatever they are
    named): each is needed, so a snippet without `requirements/` cannot pass."""
    needed = needed_by_the_build(uploadset.tracked_files(REPO_ROOT))
    locks = [name for name in needed if name.startswith("requirements/")]
    assert locks
    assert all(needed[name].startswith("COPY ") for name in locks)


def test_the_space_card_is_uploaded_as_the_readme() -> None:
    uploaded = uploadset.read_upload_set(REPO_ROOT)
    assert uploaded["README.md"] == REPO_ROOT / "deploy" / "space" / "README.md"


def test_the_space_card_sets_up_the_operators_sign_in() -> None:
    """The pages' "Sign in with Hugging Face" reads the variables a Space gets from
    `hf_oauth: true`; the scopes it asks for (openid profile) are those every Space app has."""
    card = front_matter(SPACE_README)
    assert card["hf_oauth"] is True
    assert "hf_oauth_scopes" not in card
    # the sign-in's access token re-checks an org member's session: it lives as long
    assert card["hf_oauth_expiration_minutes"] * 60 == ADMIN_COOKIE_TTL_S


def test_the_entry_point_script_is_made_executable_in_the_image() -> None:
    """A Space repository's files carry no mode (a commit over the Hub's API names none): the
    script the ENTRYPOINT runs must get its `x` bit in the build, or tini's exec is refused."""
    instructions = dockerfile_instructions()
    (entrypoint,) = [item for item in instructions if item.keyword == "ENTRYPOINT"]
    script = json.loads(entrypoint.arguments)[2]
    copied = [
        index
        for index, item in enumerate(instructions)
        if item.keyword == "COPY" and item.arguments.split()[-1].endswith(f"/{script}")
    ]
    assert copied, f"no COPY puts {script} into the image"
    target = instructions[copied[-1]].arguments.split()[-1]
    later_runs = [item.arguments for item in instructions[copied[-1] :] if item.keyword == "RUN"]
    assert any(re.search(rf"chmod \S*\s*{re.escape(target)}", run) for run in later_runs), (
        f"no RUN chmod of {target} after it is copied"
    )
