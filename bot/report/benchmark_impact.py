"""The comment section of a benchmark PR: what its eval.yaml change does to existing results.
Pure; every user string escaped."""

from __future__ import annotations

from bot.report import standing_and_clashes_texts as texts
from bot.report.comment_texts import LIST_ITEM, MORE_ITEMS, plural
from bot.report.escaping import escape_text
from bot.validation.impact import Change, Impact, ResultRef


def render_impact(impact: Impact | None, unread_files: int = 0) -> str:
    lines = [texts.IMPACT_HEADING]
    if impact is None:
        lines.append(texts.IMPACT_UNREAD)
        return "\n\n".join(lines)
    if not impact.orphaned and not impact.reranked and not impact.changes:
        lines.append(
            texts.IMPACT_NONE.format(
                count=impact.results, results_word=plural(impact.results, "result")
            )
        )
        return "\n\n".join(lines)
    lines.append("\n".join(LIST_ITEM.format(item=_change(change)) for change in impact.changes))
    if impact.orphaned:
        count = len(impact.orphaned)
        items = [
            texts.ORPHAN_ITEM.format(**_where(result), cause=_change(cause))
            for result, cause in impact.orphaned[: texts.MAX_LISTED]
        ]
        lines.append(
            "\n".join(
                [
                    texts.ORPHANED.format(
                        count=count, results_word=plural(count, "result"), total=impact.results
                    ),
                    *items,
                    *_more(count),
                ]
            )
        )
    if impact.reranked:
        count = len(impact.reranked)
        items = [texts.RERANK_ITEM.format(**_where(r)) for r in impact.reranked[: texts.MAX_LISTED]]
        lines.append(
            "\n".join(
                [
                    texts.RERANKED.format(count=count, results_word=plural(count, "result")),
                    *items,
                    *_more(count),
                ]
            )
        )
    if unread_files:
        lines.append(texts.UNREAD_FILES.format(count=unread_files))
    return "\n\n".join(lines)


def _change(change: Change) -> str:
    return texts.CHANGE_TEXTS[change.kind.value].format(
        old=escape_text(change.old, 80), new=escape_text(change.new or "", 80)
    )


def _where(result: ResultRef) -> dict[str, object]:
    return {
        "model": escape_text(result.model_id, 120),
        "path": escape_text(result.path, 200),
        "line": result.line,
        "pr": texts.IN_PR.format(num=result.pr) if result.pr is not None else "",
        "task": texts.TASK.format(task=escape_text(result.task_id, 80)) if result.task_id else "",
    }


def _more(count: int) -> list[str]:
    extra = count - texts.MAX_LISTED
    return [LIST_ITEM.format(item=MORE_ITEMS.format(count=extra))] if extra > 0 else []
