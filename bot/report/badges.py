"""Badges: what the Hub shows next to a result, decided from the checks' verdicts
(docs/specs.md#badges, docs/comment.md, "Badges")."""

from __future__ import annotations

from bot.report import comment_texts
from bot.report.comment_texts import Badge
from bot.validation.model import EntryReport, VerificationStatus


def badge_label(badge: Badge, entry: EntryReport) -> str:
    """A badge as the comment shows it: 🔗 says whether the source was checked."""
    if badge is Badge.SOURCE and entry.source is not None:
        return comment_texts.SOURCE_LABELS.get(
            entry.source.status.value, comment_texts.BADGE_LABELS[badge]
        )
    return comment_texts.BADGE_LABELS[badge]


def badges_for(report: EntryReport) -> list[Badge]:
    """Badges in display order; empty for an entry with errors."""
    if not report.ok:
        return []
    badges: list[Badge] = []
    if report.verification.status is VerificationStatus.VERIFIED:
        badges.append(Badge.VERIFIED)
    else:
        badges.append(Badge.COMMUNITY)
    if report.benchmark is not None:
        badges.append(Badge.LEADERBOARD)
    source = report.entry.data.get("source")
    if isinstance(source, dict) and _is_http_url(source.get("url")):
        badges.append(Badge.SOURCE)
    return badges


def _is_http_url(value: object) -> bool:
    return isinstance(value, str) and value.lower().startswith(("https://", "http://"))
