"""`evalbot frameworks refresh` and `list`: from a file, from a URL on loopback, bounded in time."""

from __future__ import annotations

import http.server
import json
import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.cli import main
from bot.validation.frameworks import KNOWN
from tests.support.processes import REPO_ROOT

SAMPLE = REPO_ROOT / "tests" / "samples" / "frameworks" / "eval.ts"


def written(path: Path) -> dict[str, object]:
    data: dict[str, object] = json.loads(path.read_text())
    return data


def test_refresh_from_a_file_writes_the_list(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    output = tmp_path / "frameworks.json"
    assert main(["frameworks", "refresh", "--source", str(SAMPLE), "--output", str(output)]) == 0
    data = written(output)
    assert data["frameworks"] == list(KNOWN.names)
    assert data["source"] == str(SAMPLE)
    assert "30 frameworks" in capsys.readouterr().out


@pytest.fixture
def eval_ts_server() -> Iterator[str]:
    body = SAMPLE.read_bytes()

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            if self.path != "/eval.ts":
                self.send_error(404)
                return
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def test_refresh_from_a_url(eval_ts_server: str, tmp_path: Path) -> None:
    output = tmp_path / "frameworks.json"
    url = f"{eval_ts_server}/eval.ts"
    assert main(["frameworks", "refresh", "--source", url, "--output", str(output)]) == 0
    assert written(output)["frameworks"] == list(KNOWN.names)


def test_a_missing_page_changes_nothing(
    eval_ts_server: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    output = tmp_path / "frameworks.json"
    url = f"{eval_ts_server}/gone.ts"
    assert main(["frameworks", "refresh", "--source", url, "--output", str(output)]) == 2
    assert "HTTP 404" in capsys.readouterr().err
    assert not output.exists()


@pytest.mark.timeout(30)
def test_a_source_that_never_answers_times_out(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with socket.create_server(("127.0.0.1", 0)) as silent:  # accepts (backlog), never answers
        url = f"http://127.0.0.1:{silent.getsockname()[1]}/eval.ts"
        output = tmp_path / "frameworks.json"
        args = ["frameworks", "refresh", "--source", url, "--output", str(output)]
        assert main([*args, "--timeout", "0.3"]) == 2
    assert "Timeout" in capsys.readouterr().err
    assert not output.exists()


def test_a_file_that_is_not_eval_ts_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "page.html"
    source.write_text("<html>rate limited</html>")
    output = tmp_path / "frameworks.json"
    assert main(["frameworks", "refresh", "--source", str(source), "--output", str(output)]) == 2
    assert "EVALUATION_FRAMEWORKS" in capsys.readouterr().err
    assert not output.exists()


def test_list_prints_every_known_id(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["frameworks", "list"]) == 0
    captured = capsys.readouterr()
    assert captured.out.split() == list(KNOWN.names)
    assert "refreshed" in captured.err


def test_refresh_writes_the_users_cache_and_every_command_reads_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Not into site-packages: into the user's cache, which later commands prefer."""
    import bot
    from bot.validation import frameworks

    cache = tmp_path / "cache" / "evalbot"
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setattr(frameworks, "_current", frameworks.KNOWN)
    packaged = Path(bot.__file__).parent / "data" / "evaluation_frameworks.json"
    before = packaged.read_bytes()
    newer = SAMPLE.read_text().replace('name: "exgentic"', 'name: "brand-new-harness"', 1)
    assert newer != SAMPLE.read_text()
    (tmp_path / "eval.ts").write_text(newer)
    assert main(["frameworks", "refresh", "--source", str(tmp_path / "eval.ts")]) == 0
    assert "added brand-new-harness" in capsys.readouterr().out
    assert packaged.read_bytes() == before
    names = written(cache / "evaluation_frameworks.json")["frameworks"]
    assert isinstance(names, list)
    assert "brand-new-harness" in names
    monkeypatch.setattr(frameworks, "_current", frameworks.KNOWN)
    assert main(["frameworks", "list"]) == 0
    listed = capsys.readouterr()
    assert "brand-new-harness" in listed.out.split()
    assert f"your refreshed copy {cache / 'evaluation_frameworks.json'}" in listed.err
    # A benchmark naming the new framework is no longer BENCH-FRAMEWORK-UNKNOWN.
    monkeypatch.setattr(frameworks, "_current", frameworks.KNOWN)
    eval_yaml = tmp_path / "bench" / "eval.yaml"
    eval_yaml.parent.mkdir()
    eval_yaml.write_text(
        "name: B\ndescription: d\nevaluation_framework: brand-new-harness\ntasks:\n  - id: t\n"
    )
    main(["validate", str(eval_yaml)])
    assert "BENCH-FRAMEWORK-UNKNOWN" not in capsys.readouterr().out
    monkeypatch.setattr(frameworks, "_current", frameworks.KNOWN)


def test_a_broken_refreshed_copy_is_said_and_left_aside(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from bot.validation import frameworks

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setattr(frameworks, "_current", frameworks.KNOWN)
    (tmp_path / "evalbot").mkdir()
    (tmp_path / "evalbot" / "evaluation_frameworks.json").write_text("{not json")
    assert main(["frameworks", "list"]) == 0
    err = capsys.readouterr().err
    assert "not a framework list" in err
    assert "(the list shipped with evalbot)" in err
