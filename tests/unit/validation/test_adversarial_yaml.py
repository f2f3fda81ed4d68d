"""docs/security.md#adversarial-inputs items 7-11: every hostile YAML ends in a diagnostic, cheaply.

Each case goes through the whole validation (loader, entry rules, cross-checks) and must
finish under 1 s and 100 MB of traced Python memory, with at least one diagnostic.
"""

from __future__ import annotations

import pytest

from bot.adapters.benchmarks_dir import DirectoryBenchmarkSource
from bot.validation.model import FileReport
from bot.validation.validate import validate_results_files
from tests.unit.validation.budget import measure, within_budget


def alias_bomb(width: int, depth: int) -> bytes:
    lines = [b"a0: &a0 [" + b", ".join([b'"lol"'] * width) + b"]"]
    for level in range(1, depth + 1):
        items = b", ".join([b"*a%d" % (level - 1)] * width)
        lines.append(b"a%d: &a%d [%s]" % (level, level, items))
    return b"\n".join(lines) + b"\n"


def entry(extra: bytes) -> bytes:
    return b"- dataset:\n    id: Idavidrein/gpqa\n    task_id: diamond\n" + extra


CASES: dict[str, tuple[bytes, str]] = {
    # item 7: aliases
    "alias-bomb-9x6": (alias_bomb(9, 6), "YAML-ALIAS-BUDGET"),
    "alias-bomb-9x9": (alias_bomb(9, 9), "YAML-ALIAS-BUDGET"),
    "anchor-reused-10000-times": (
        b"- &e {dataset: {id: Idavidrein/gpqa, task_id: diamond}, value: 1}\n" + b"- *e\n" * 10_000,
        "FILE-TOO-MANY-ENTRIES",
    ),
    "anchor-reused-within-caps": (
        b"- &e {dataset: {id: Idavidrein/gpqa, task_id: diamond}, value: 1}\n" + b"- *e\n" * 999,
        "ENTRY-DUPLICATE",
    ),
    "self-referencing-anchor": (b"- &a [*a]\n", "YAML-ALIAS-UNDEFINED"),
    "self-referencing-mapping": (b"- &a {x: *a}\n", "YAML-ALIAS-UNDEFINED"),
    "merge-key-abuse": (
        alias_bomb(9, 4) + b"b: {<<: [*a4, *a4, *a4, *a4, *a4, *a4, *a4, *a4, *a4, *a4]}\n",
        "YAML-ALIAS-BUDGET",
    ),
    # item 8: duplicate keys at every level
    "duplicate-value": (entry(b"  value: 0.9\n  value: 0.1\n"), "YAML-DUPLICATE-KEY"),
    "duplicate-dataset": (entry(b"  dataset: {id: x/y}\n  value: 1\n"), "YAML-DUPLICATE-KEY"),
    "duplicate-task-id": (
        b"- dataset:\n    id: Idavidrein/gpqa\n    task_id: diamond\n    task_id: main\n"
        b"  value: 1\n",
        "YAML-DUPLICATE-KEY",
    ),
    "colliding-keys-1-true-1.0": (b"- {1: a, true: b, 1.0: c}\n", "YAML-KEY-NOT-STRING"),
    # item 9: YAML 1.1 traps
    "task-id-on": (
        b"- dataset: {id: Idavidrein/gpqa, task_id: on}\n  value: 50\n",
        "ENTRY-YAML11-AMBIGUOUS",
    ),
    "task-id-no": (
        b"- dataset: {id: Idavidrein/gpqa, task_id: no}\n  value: 50\n",
        "ENTRY-YAML11-AMBIGUOUS",
    ),
    "config-NO": (entry(b"    config: NO\n  value: 50\n"), "ENTRY-YAML11-AMBIGUOUS"),
    "revision-0123456": (entry(b"    revision: 0123456\n  value: 50\n"), "ENTRY-FIELD-TYPE"),
    "revision-1234567e89": (
        entry(b"    revision: 1234567e89\n  value: 50\n"),
        "ENTRY-FIELD-TYPE",
    ),
    "value-1e3": (entry(b"  value: 1e3\n"), "ENTRY-YAML11-AMBIGUOUS"),
    "value-2.09e1": (entry(b"  value: 2.09e1\n"), "ENTRY-YAML11-AMBIGUOUS"),
    "value-quoted-20.90": (entry(b'  value: "20.90"\n'), "ENTRY-VALUE-NOT-NUMBER"),
    "value-nan": (entry(b"  value: .nan\n"), "ENTRY-VALUE-NOT-FINITE"),
    "value-inf": (entry(b"  value: .inf\n"), "ENTRY-VALUE-NOT-FINITE"),
    "value-minus-inf": (entry(b"  value: -.inf\n"), "ENTRY-VALUE-NOT-FINITE"),
    "value-true": (entry(b"  value: true\n"), "ENTRY-VALUE-NOT-NUMBER"),
    "value-hex": (entry(b"  value: 0x1F\n"), "ENTRY-NUMBER-NOTATION"),
    "value-sexagesimal": (entry(b"  value: 1:20\n"), "ENTRY-VALUE-NOT-NUMBER"),
    "date-unquoted": (entry(b"  value: 50\n  date: 2025-01-15\n"), "ENTRY-YAML11-AMBIGUOUS"),
    "date-impossible": (entry(b"  value: 50\n  date: 2025-13-45\n"), "ENTRY-DATE"),
    # item 10: tags
    "tag-python-object": (
        entry(b"  value: !!python/object/apply:os.system ['touch /tmp/pwned']\n"),
        "YAML-TAG",
    ),
    "tag-binary": (entry(b"  value: !!binary aGVsbG8=\n"), "YAML-TAG"),
    "tag-set": (entry(b"  value: 1\n  notes: !!set {a, b}\n"), "YAML-TAG"),
    "tag-omap": (entry(b"  value: 1\n  notes: !!omap [a: 1]\n"), "YAML-TAG"),
    "tag-custom": (entry(b"  value: !foo 1\n"), "YAML-TAG"),
    # item 11: document shapes and encodings
    "multiple-documents": (
        entry(b"  value: 1\n---\n") + entry(b"  value: 2\n"),
        "YAML-MULTIPLE-DOCUMENTS",
    ),
    "empty-file": (b"", "YAML-EMPTY"),
    "null-document": (b"null\n", "FILE-NOT-LIST"),
    "top-level-mapping": (
        b"dataset: {id: Idavidrein/gpqa, task_id: diamond}\nvalue: 1\n",
        "FILE-NOT-LIST",
    ),
    # item 12: a git symlink served as its link text (git stores the target path as the blob,
    # with no final newline); an LFS pointer served as itself (not the object)
    "symlink-text": (b"../README.md", "FILE-NOT-LIST"),
    "symlink-absolute": (b"/etc/passwd", "FILE-NOT-LIST"),
    "lfs-pointer": (
        b"version https://git-lfs.github.com/spec/v1\noid sha256:" + b"e" * 64 + b"\nsize 120\n",
        "FILE-NOT-LIST",  # a mapping: version, oid, size
    ),
    "100k-entries": (b"- 1\n" * 100_000, "FILE-TOO-MANY-ENTRIES"),
    "10MB-string": (b'- notes: "' + b"x" * 10_000_000 + b'"\n', "YAML-TOO-LARGE"),
    "crlf-and-bom-ok-but-scale": (
        b"\xef\xbb\xbf" + entry(b"  value: 0.5\n").replace(b"\n", b"\r\n"),
        "ENTRY-VALUE-SCALE",
    ),
    "line-separator-in-notes": (
        entry('  value: 50\n  notes: "a\u2028b"\n  note: x\n'.encode()),
        "ENTRY-FIELD-UNKNOWN",
    ),
    "nul-byte": (entry(b"  value: 5\x000\n"), "YAML-NUL-BYTE"),
    "utf16-bom": ("\ufeff- value: 1\n".encode("utf-16"), "YAML-NOT-UTF8"),
    "deep-brackets": (b"[" * 100_000, "YAML-TOO-DEEP"),
    "deep-braces": (b"{a: " * 100_000, "YAML-TOO-DEEP"),
    "deep-block": (b"".join(b"  " * level + b"- \n" for level in range(700)), "YAML-TOO-DEEP"),
    # past libyaml's own cap (1000 levels, PyYAML >= 6.0.4), which its scanner reaches before
    # the walk sees our 33rd level: the bot's rule still names the fault
    "deep-brackets-closed": (b"[" * 2_000 + b"]" * 2_000, "YAML-TOO-DEEP"),
    "deep-block-one-line": (b"- " * 2_000 + b"x\n", "YAML-TOO-DEEP"),
    "deep-json-objects": (b'{"a": ' * 1_500 + b"1" + b"}" * 1_500, "YAML-TOO-DEEP"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_hostile_yaml_ends_in_a_diagnostic_within_budget(
    name: str, store: DirectoryBenchmarkSource
) -> None:
    content, expected_code = CASES[name]

    def run() -> list[FileReport]:
        return validate_results_files({".eval_results/gpqa.yaml": content}, store)

    (report,), cost = measure(run)
    found = [d.code for d in report.diagnostics] + [
        d.code for entry in report.entries for d in entry.diagnostics
    ]
    assert expected_code in found, found
    assert within_budget(cost), cost
