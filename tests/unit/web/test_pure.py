"""The web pages' pure parts: charts, the source view, the playground's paths, worker state,
the history records."""

from __future__ import annotations

import json
from datetime import UTC, datetime

from bot.report.counts import Counts
from bot.store.heartbeats import WorkerBeat
from bot.store.history import parse_pr_history
from bot.store.verdicts import parse_verdict, verdict_of
from bot.store.worker_counters import WorkerSnapshot
from bot.web.charts import HEIGHT, WIDTH, build_charts
from bot.web.live import Sample, decode_sample, encode_sample, workers_state
from bot.web.lookup import Wanted, parse_wanted
from bot.web.playground import PlaygroundInput, Problem, comment_html, results_path, source_view


def snapshot(runs: int = 0, queue: int = 0, unacked: int = 0, retries: int = 0) -> WorkerSnapshot:
    return WorkerSnapshot(
        {"outcome:posted": runs, "retry:hub-5xx": retries}, 0, queue, unacked, hub_paused_s=0.0
    )


def test_rates_are_per_minute_and_never_negative() -> None:
    samples = [
        Sample(1000.0, snapshot(runs=10, retries=1)),
        Sample(1060.0, snapshot(runs=40, retries=3)),
        Sample(1120.0, snapshot(runs=5)),  # counters reset (Redis flushed)
    ]
    charts = {chart.title: chart for chart in build_charts(samples, now=1120.0)}
    assert charts["Runs"].latest == 0.0
    assert charts["Runs"].peak == 30.0
    assert charts["Errors"].peak == 2.0
    for chart in charts.values():
        for pair in chart.points.split():
            x, y = map(float, pair.split(","))
            assert 0 <= x <= WIDTH
            assert 0 <= y <= HEIGHT


def test_a_chart_without_samples_is_empty() -> None:
    assert all(chart.empty for chart in build_charts([], now=0.0))


def test_samples_round_trip_and_garbage_is_skipped() -> None:
    sample = Sample(12.5, snapshot(runs=3, queue=2))
    assert decode_sample(encode_sample(sample)) == sample
    assert decode_sample(b"{not json") is None
    assert decode_sample(b'{"at": 1}') is None


def test_workers_state_without_heartbeats_is_no_worker_not_idle() -> None:
    """No heartbeat and nothing moving: no worker exists, even with nothing waiting (the
    next event would wait for ever), never a green "idle"."""
    still = [Sample(0, snapshot(runs=1)), Sample(60, snapshot(runs=1))]
    nothing = workers_state(snapshot(runs=1), still)
    assert nothing.state == "none"
    assert "no worker alive" in nothing.text
    assert workers_state(snapshot(runs=1, queue=4), still).state == "none"
    assert workers_state(snapshot(queue=2), []).state == "none"
    moving = [Sample(0, snapshot(runs=1)), Sample(60, snapshot(runs=9))]
    assert workers_state(snapshot(runs=9, queue=4), moving).state == "consuming"
    assert workers_state(snapshot(unacked=1), []).state == "consuming"


def test_results_path_follows_the_name_given_else_the_benchmark() -> None:
    assert results_path(PlaygroundInput(b"", "results", file_name="../x/hle.yaml")) == (
        ".eval_results/hle.yaml"
    )
    picked = PlaygroundInput(b"", "results", benchmark="cais/hle")
    assert results_path(picked) == ".eval_results/hle.yaml"
    assert results_path(PlaygroundInput(b"", "results")) == ".eval_results/results.yaml"
    pasted = PlaygroundInput(b"- dataset:\n    id: 'Idavidrein/gpqa'\n", "results")
    assert results_path(pasted) == ".eval_results/gpqa.yaml"


def problem(line: int, severity: str = "error") -> Problem:
    return Problem(line, severity, "CODE", "message", "hint", "entry #1")


def test_source_view_marks_problem_lines_and_elides_long_files() -> None:
    short = source_view(b"a\nb\nc\n", [problem(2), problem(2, "warning")])
    assert [line.severity for line in short] == [None, "error", None]
    assert len(short[1].problems) == 2
    long = "\n".join(f"line {n}" for n in range(1, 1001)).encode()
    view = source_view(long, [problem(500)])
    numbers = [line.number for line in view]
    assert numbers == [None, 497, 498, 499, 500, 501, 502, 503, None]
    assert view[0].text == "… 496 lines"
    assert view[-1].text == "… 497 lines"


def test_source_view_survives_invalid_utf8_and_out_of_range_lines() -> None:
    view = source_view(b"\xff\xfe ok\n", [problem(99)])
    assert view[0].text.endswith(" ok")
    assert view[0].severity is None


def test_comment_html_drops_the_footer_and_escapes_user_text() -> None:
    html = comment_html("### Title\n\n&lt;script&gt; x\n\n---\n<sub>footer</sub>")
    assert "footer" not in html
    assert "<script>" not in html
    assert "&lt;script&gt;" in html


def test_verdicts_round_trip_and_unreadable_ones_are_skipped() -> None:
    verdict = verdict_of(
        "a" * 40, "posted", "open", Counts(2, 1, 1, 0, 0, 3), datetime(2026, 11, 24, tzinfo=UTC)
    )
    assert verdict.at == "2026-11-24T00:00:00Z"
    assert verdict.ok
    import json
    from dataclasses import asdict

    raw = json.dumps(asdict(verdict))
    history = parse_pr_history(7, [raw, "garbage", '{"head": 1}'])
    assert history.verdicts == (verdict,)
    assert parse_verdict("[]") is None


def beat(age_s: float) -> WorkerBeat:
    return WorkerBeat("w1@host", "host", 42, 2, 0.0, 100.0, 30.0, 0, age_s)


def test_workers_state_follows_the_heartbeats_when_there_are_any() -> None:
    alive = WorkerSnapshot({}, 0, 5, 0, workers=(beat(3.0), beat(99.0)))
    assert workers_state(alive, []).text == "consuming: 1 worker alive"
    silent = WorkerSnapshot({}, 0, 5, 0, workers=(beat(99.0),))
    state = workers_state(silent, [])
    assert state.state == "stalled"
    assert "no worker alive" in state.text


def counters(runs: int = 0, busy: int = 0, failed: int = 0) -> WorkerSnapshot:
    return WorkerSnapshot(
        {"outcome:posted": runs, "retry:busy": busy, "retry:hub-transient": failed},
        0,
        0,
        0,
        hub_paused_s=0.0,
    )


def test_the_errors_chart_leaves_out_waits_for_a_busy_pr() -> None:
    samples = [Sample(1000.0, counters(busy=0)), Sample(1060.0, counters(busy=50))]
    errors = {c.title: c for c in build_charts(samples, now=1060.0)}["Errors"]
    assert errors.peak == 0.0
    samples = [Sample(1000.0, counters(busy=0)), Sample(1060.0, counters(busy=50, failed=3))]
    errors = {c.title: c for c in build_charts(samples, now=1060.0)}["Errors"]
    assert errors.peak == 3.0


def test_charts_span_the_last_hour_with_a_time_axis_and_a_scale() -> None:
    now = 10_000.0
    one = [Sample(now - 30, snapshot(queue=7))]
    queue = {c.title: c for c in build_charts(one, now=now)}["Queue"]
    assert not queue.empty  # one sample draws a dot
    assert len(queue.dots) == 1
    x, y = queue.dots[0]
    assert WIDTH - 10 < x <= WIDTH  # 30 s ago: at the right end of an hour-wide axis
    assert [tick.label for tick in queue.x_ticks] == [
        "-60 min",
        "-45 min",
        "-30 min",
        "-15 min",
        "now",
    ]
    assert [tick.label for tick in queue.y_ticks] == ["0", "10"]
    assert 0 <= y <= HEIGHT
    half = [Sample(now - 1800, snapshot(queue=1)), Sample(now, snapshot(queue=2))]
    chart = {c.title: c for c in build_charts(half, now=now)}["Queue"]
    first_x = chart.dots[0][0]
    assert abs(first_x - (chart.x_ticks[2].at)) < 1  # half an hour ago sits at "-30 min"
    old = [Sample(now - 7200, snapshot(queue=3))]
    assert {c.title: c for c in build_charts(old, now=now)}["Queue"].empty


def test_a_crlf_paste_is_named_after_its_benchmark() -> None:
    pasted = b"- dataset:\r\n    id: org/gpqa-mini\r\n    task_id: diamond\r\n  value: 1\r\n"
    assert results_path(PlaygroundInput(pasted, "results")) == ".eval_results/gpqa_mini.yaml"


def test_a_pasted_hub_address_names_the_model_and_the_pr() -> None:
    assert parse_wanted("alice/model") == Wanted("alice/model")
    assert parse_wanted(" https://huggingface.co/Alice/Model ") == Wanted("Alice/Model")
    assert parse_wanted("https://huggingface.co/alice/model/discussions/12") == Wanted(
        "alice/model", 12
    )
    assert parse_wanted("https://huggingface.co/alice/model/blob/main/README.md") == Wanted(
        "alice/model"
    )
    # A dataset is named as its Hub path names it (the history keeps datastores so).
    assert parse_wanted("https://huggingface.co/datasets/org/store") == Wanted("datasets/org/store")
    assert parse_wanted("datasets/org/store/discussions/3") == Wanted("datasets/org/store", 3)
    assert parse_wanted("https://huggingface.co/datasets/org") is None
    assert parse_wanted("https://huggingface.co/spaces/org/app") is None
    assert parse_wanted("not a repo") is None
    assert parse_wanted("") is None


def test_verdicts_keep_problems_title_author_and_tokens_within_caps() -> None:
    from bot.store.verdicts import MAX_PROBLEMS_KEPT, MAX_TEXT
    from bot.validation.catalogue import Severity
    from bot.validation.diagnostics import Diagnostic
    from bot.validation.model import (
        Dialect,
        EntryReport,
        FileReport,
        ResultEntry,
        Verification,
        VerificationStatus,
    )

    many = [
        Diagnostic("TASK-UNKNOWN", Severity.ERROR, "x" * 1000, line=n, hint="use diamond")
        for n in range(1, 30)
    ]
    entry = EntryReport(
        ResultEntry(index=0, line=2, data={}, dialect=Dialect.LIVE),
        verification=Verification(VerificationStatus.UNVERIFIED, "token-expired"),
    )
    report = FileReport(".eval_results/gpqa.yaml", "results", many, [entry])
    verdict = verdict_of(
        "b" * 40,
        "posted",
        "open",
        Counts(1, 0, 1, 1, 29, 0),
        datetime(2026, 11, 24, tzinfo=UTC),
        reports=[report],
        title="Add GPQA <script>",
        author="alice",
    )
    assert len(verdict.problems) == MAX_PROBLEMS_KEPT
    assert verdict.problems_total == 29
    assert verdict.problems[0].code == "TASK-UNKNOWN"
    assert verdict.problems[0].file == ".eval_results/gpqa.yaml"
    assert verdict.problems[0].line == 1
    assert verdict.problems[0].fix == "use diamond"
    assert len(verdict.problems[0].message) == MAX_TEXT
    assert verdict.tokens[0].reason == "token-expired"
    assert not verdict.tokens[0].verified
    import json
    from dataclasses import asdict

    raw = json.dumps(asdict(verdict))
    assert parse_pr_history(3, [raw]).verdicts == (verdict,)
    again = json.dumps({**asdict(verdict), "at": "2026-11-25T00:00:00Z"})
    history = parse_pr_history(3, [again, raw])  # the same head checked twice: one row
    assert [v.at for v in history.verdicts] == ["2026-11-25T00:00:00Z"]


def test_the_badge_escapes_what_results_say() -> None:
    from bot.web.badge import BadgeText, render_svg

    svg = render_svg(BadgeText('a"><script>x</script>', "1 < 2 & 3", "verified"))
    assert "<script>" not in svg
    assert "&lt;script&gt;" in svg
    assert "1 &lt; 2 &amp; 3" in svg
    assert svg.startswith('<svg xmlns="http://www.w3.org/2000/svg"')


def test_verdicts_keep_each_sources_state_and_the_pr_page_shows_it() -> None:
    """Checked, disagreeing and unread sources are kept apart in the history and on the page."""
    from dataclasses import asdict

    from jinja2 import Environment, FileSystemLoader, select_autoescape

    from bot.store.history import PrHistory
    from bot.validation.model import (
        Dialect,
        EntryReport,
        FileReport,
        ResultEntry,
        SourceCheck,
        SourceStatus,
    )
    from bot.web.site import WEB_ROOT

    def entry(index: int, source: SourceCheck | None) -> EntryReport:
        data = {"dataset": {"id": "TIGER-Lab/MMLU-Pro", "task_id": "mmlu_pro"}, "value": 52.29}
        result = ResultEntry(index, 1 + index, data, Dialect.LIVE, "TIGER-Lab/MMLU-Pro", "mmlu_pro")
        return EntryReport(result, source=source)

    url = "https://huggingface.co/datasets/evaleval/EEE_datastore/blob/c0ffee/flat/objects/x.json"
    where = {"datastore": "evaleval/EEE_datastore", "revision": "c0ffee", "path": "flat/x.json"}
    entries = [
        entry(0, SourceCheck(SourceStatus.CHECKED, url, record_id="mmlu-pro/yi/1", **where)),
        entry(1, SourceCheck(SourceStatus.MISMATCH, url, record_id="mmlu-pro/yi/1", **where)),
        entry(2, SourceCheck(SourceStatus.UNREADABLE, url, reason="timeout", **where)),
        entry(3, SourceCheck(SourceStatus.LINKED, "https://arxiv.org/abs/1")),
        entry(4, None),
    ]
    report = FileReport(".eval_results/mmlu_pro.yaml", "results", [], entries)
    verdict = verdict_of(
        "c" * 40, "posted", "open", Counts(5, 0, 5, 0, 0, 0), datetime(2026, 11, 24, tzinfo=UTC),
        reports=[report],
    )  # fmt: skip
    assert [(e.source, e.source_record) for e in verdict.entries] == [
        ("checked", "mmlu-pro/yi/1"),
        ("mismatch", "mmlu-pro/yi/1"),
        ("unreadable", "flat/x.json"),
        ("linked", ""),
        ("", ""),
    ]
    assert verdict.entries[0].source_revision == "c0ffee"
    raw = json.dumps(asdict(verdict))
    (kept,) = parse_pr_history(4, [raw]).verdicts
    assert kept == verdict  # the API serves asdict(verdict): the fields travel as they are

    templates = Environment(
        loader=FileSystemLoader(str(WEB_ROOT / "templates")),
        autoescape=select_autoescape(default=True),
    )
    html = templates.get_template("pr.html").render(
        bot_name="evalbot",
        path="/pr/alice/model/4",
        repo="alice/model",
        pr=PrHistory(4, (kept,)),
        pr_url="",
        commit_url="",
        file_url="",
    )
    assert "🔗 ✔️ checked</span> against record <code>mmlu-pro/yi/1</code> at <code>c0ffee" in html
    assert "🔗 disagrees</span> with record <code>mmlu-pro/yi/1</code>" in html
    assert "🔗 not checked</span> the record <code>flat/x.json</code> could not be read" in html
    assert html.count('<li><span class="badge') == 3  # the plain link and no source: not listed
