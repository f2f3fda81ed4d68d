"""The Space's upload set read from a deploy doc's snippet and replayed with huggingface_hub's
filter over a git checkout's tracked files."""

from __future__ import annotations

import stat
import subprocess
from pathlib import Path

import pytest

from deploy.imagecheck import uploadset

SNIPPET = """\
Some prose.

```python
from huggingface_hub import HfApi

api = HfApi()
api.upload_folder(
    repo_id=space,
    repo_type="space",
    folder_path=".",
    allow_patterns=["Dockerfile", "requirements/*.txt", "pkg/**"],
    ignore_patterns=["**/__pycache__/*"],
)
api.upload_file(
    repo_id=space,
    path_or_fileobj="deploy/card.md",
    path_in_repo="README.md",
)
```
"""


def checkout(tmp_path: Path, files: dict[str, str], untracked: dict[str, str]) -> Path:
    root = tmp_path / "project"
    for name, text in {**files, **untracked}.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    subprocess.run(["git", "-C", str(root), "add", *files], check=True)
    return root


def test_the_snippet_is_read() -> None:
    upload = uploadset.documented_upload(SNIPPET)
    assert upload.folder == "."
    assert upload.allow_patterns == ("Dockerfile", "requirements/*.txt", "pkg/**")
    assert upload.ignore_patterns == ("**/__pycache__/*",)
    assert upload.files == (("README.md", "deploy/card.md"),)


def test_the_set_is_the_filter_over_tracked_files_plus_the_uploaded_card(tmp_path: Path) -> None:
    root = checkout(
        tmp_path,
        {
            "Dockerfile": "FROM x\n",
            "README.md": "the project's readme\n",
            "requirements/server.txt": "a==1\n",
            "requirements/notes.md": "not a lock\n",
            "pkg/__init__.py": "",
            "pkg/sub/mod.py": "",
            "tests/test_x.py": "",
            "deploy/card.md": "---\nsdk: docker\n---\n",
        },
        untracked={"pkg/scratch.py": "", "pkg/__pycache__/mod.cpython-311.pyc": ""},
    )
    files = uploadset.upload_set(root, uploadset.documented_upload(SNIPPET))
    assert sorted(files) == [
        "Dockerfile",
        "README.md",
        "pkg/__init__.py",
        "pkg/sub/mod.py",
        "requirements/server.txt",
    ]
    assert files["README.md"] == root / "deploy" / "card.md"  # the card, not the readme


def test_laid_out_files_carry_no_mode_as_on_the_hub(tmp_path: Path) -> None:
    source = tmp_path / "run.sh"
    source.write_text("#!/bin/sh\n")
    source.chmod(0o755)
    target = tmp_path / "space"
    uploadset.lay_out({"deploy/run.sh": source}, target)
    mode = stat.S_IMODE((target / "deploy" / "run.sh").stat().st_mode)
    assert mode == 0o644


@pytest.mark.parametrize(
    ("doc", "message"),
    [
        ("no snippet at all\n", "expected one ```python block calling upload_folder, found 0"),
        (
            SNIPPET + SNIPPET,
            "expected one ```python block calling upload_folder, found 2",
        ),
        (
            SNIPPET.replace(
                'allow_patterns=["Dockerfile"', 'allow_patterns=[PATTERNS, "Dockerfile"'
            ),
            "line 7: `allow_patterns` must be a literal",
        ),
        (SNIPPET.replace('folder_path=".",', "folder_path=here,"), "line 7: `folder_path`"),
        (SNIPPET.replace('path_in_repo="README.md",', ""), "line 14: `path_in_repo`"),
        (SNIPPET.replace("api.upload_folder(", "api.upload_folder(("), "is not Python"),
    ],
)
def test_a_snippet_that_cannot_be_read_names_the_doc_and_line(doc: str, message: str) -> None:
    with pytest.raises(uploadset.UploadDocError) as raised:
        uploadset.documented_upload(doc, "docs/deploy.md")
    assert message in str(raised.value)
    assert str(raised.value).startswith("docs/deploy.md:")
