"""`python -m deploy.imagecheck`'s own rules (the check itself runs under `pytest -m image`)."""

from __future__ import annotations

from pathlib import Path

from deploy.imagecheck.__main__ import exclusive


def test_one_run_per_cache_at_a_time(tmp_path: Path) -> None:
    """A second run (or `--clean`) would kill the first one's containers: it is refused."""
    with exclusive(tmp_path) as first:
        assert first
        with exclusive(tmp_path) as second:
            assert not second
        with exclusive(tmp_path / "other") as elsewhere:
            assert elsewhere  # another cache is another lock
    with exclusive(tmp_path) as after:
        assert after  # released when the first run ends
