"""Every path of this repository the README and docs/ name (in backticks) is there: a file
renamed or retired leaves no page pointing at it. Paths of other repositories, of the user's
own folder and retired files a user may still hold are listed below with why."""

from __future__ import annotations

import re
import subprocess

from tests.conftest import REPO_ROOT

PAGES = [REPO_ROOT / "README.md", *sorted((REPO_ROOT / "docs").glob("*.md"))]
#: Backticked paths that are not this repository's, each with where it lives.
ELSEWHERE = {
    "config/collections/leaderboard-v2.yaml": "EvalHub's repository (eval-hub/eval-hub)",
    "config/convert/mappings.yaml": "the user's working directory",
    "config/policy.yaml": "a retired file a user's folder may still hold (refused, named)",
    "config/issuers.yaml": "a retired file a user's folder may still hold (refused, named)",
    "docs/hub/webhooks.md": "huggingface/hub-docs",
    "docs/hub/rate-limits.md": "huggingface/hub-docs",
    "docs/hub/eval-results.md": "huggingface/hub-docs",
    "tests/test_validate.py": "Every Eval Ever's repository",
    "tests/test_validation_scope.py": "Every Eval Ever's repository",
}
BACKTICKED = re.compile(r"`([A-Za-z0-9_.-]+(?:/[A-Za-z0-9_.-]+)+)/?`")


def tracked() -> tuple[set[str], set[str]]:
    """This repository's files, and the folders holding them."""
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard"],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    ).stdout.split()
    folders = {
        "/".join(name.split("/")[:end]) for name in listed for end in range(1, name.count("/") + 1)
    }
    return set(listed), folders


def named_paths() -> list[tuple[str, str]]:
    files, _folders = tracked()
    roots = {name.split("/", 1)[0] for name in files if "/" in name}
    found = []
    for page in PAGES:
        for number, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1):
            for match in BACKTICKED.finditer(line):
                path = match.group(1)
                if path.split("/", 1)[0] in roots and not path.endswith("..."):
                    found.append((f"{page.relative_to(REPO_ROOT)}:{number}", path))
    return found


def test_every_path_the_docs_name_is_there() -> None:
    files, folders = tracked()
    missing = [
        f"{where}: `{path}`"
        for where, path in named_paths()
        if path not in files and path not in folders and path not in ELSEWHERE
    ]
    assert missing == [], "not in this repository; name the file that holds it now"


def test_the_paths_of_elsewhere_are_still_named() -> None:
    named = {path for _where, path in named_paths()}
    assert set(ELSEWHERE) <= named, sorted(set(ELSEWHERE) - named)
