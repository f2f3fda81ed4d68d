"""Benchmarks from a folder, `root/<org>/<name>/eval.yaml`, looked up case-insensitively as on the
Hub; an eval.yaml with errors is `BenchmarkNotFound` carrying its diagnostics."""

from __future__ import annotations

from pathlib import Path

from bot.validation.benchmark import benchmark_from_eval_yaml
from bot.validation.diagnostics import did_you_mean
from bot.validation.model import BenchmarkLookup, BenchmarkNotFound


class DirectoryBenchmarkSource:
    """A `BenchmarkSource` over a folder; revisions are ignored (the folder holds one)."""

    def __init__(self, root: Path | str) -> None:
        self.root = Path(root)
        self._index: dict[str, Path] | None = None
        self._cache: dict[str, BenchmarkLookup] = {}

    def _ids(self) -> dict[str, Path]:
        """lower-cased id -> eval.yaml path, scanned once."""
        if self._index is None:
            index: dict[str, Path] = {}
            for eval_yaml in sorted(self.root.glob("*/*/eval.yaml")):
                repo_id = f"{eval_yaml.parent.parent.name}/{eval_yaml.parent.name}"
                index[repo_id.lower()] = eval_yaml
            self._index = index
        return self._index

    def known_ids(self) -> list[str]:
        return [f"{path.parent.parent.name}/{path.parent.name}" for path in self._ids().values()]

    def lookup(self, dataset_id: str, revision: str | None) -> BenchmarkLookup:
        key = dataset_id.lower()
        cached = self._cache.get(key)
        if cached is not None:
            return cached
        eval_yaml = self._ids().get(key)
        if eval_yaml is None:
            match = did_you_mean(dataset_id, self.known_ids())
            reason = f"no {dataset_id}/eval.yaml under {self.root}"
            if match is not None:
                reason += f" (did you mean `{match}`?)"
            found: BenchmarkLookup = BenchmarkNotFound(dataset_id=dataset_id, reason=reason)
        else:
            canonical = f"{eval_yaml.parent.parent.name}/{eval_yaml.parent.name}"
            found = benchmark_from_eval_yaml(canonical, eval_yaml.read_bytes(), None)
        self._cache[key] = found
        return found
