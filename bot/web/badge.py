"""The badge a model card embeds, a two-part SVG label drawn on the server in shields.io's flat
style (docs/web.md, "Badges"). Pure; every text XML-escaped."""

from __future__ import annotations

from dataclasses import dataclass
from html import escape

from bot.store.history import PrHistory

#: Colours of the right part, by what it says (the left part is always grey).
COLOURS = {"verified": "#15803d", "community": "#1d4ed8", "none": "#6b7280", "errors": "#b91c1c"}
_CHAR_PX = 6.6
_PAD_PX = 10


@dataclass(frozen=True, slots=True)
class BadgeText:
    label: str
    message: str
    tone: str  # a key of COLOURS


def repo_badge(prs: list[PrHistory]) -> BadgeText:
    """What the repo's merged PRs brought, by each PR's newest verdict: verified and community
    results (a PR not merged is no result of the model's yet)."""
    merged = [pr.verdicts[0] for pr in prs if pr.verdicts and pr.verdicts[0].state == "merged"]
    verified = sum(v.verified for v in merged)
    community = sum(v.community for v in merged)
    if not verified and not community:
        return BadgeText("evals", "none checked yet", "none")
    parts = []
    if verified:
        parts.append(f"{verified} verified")
    if community:
        parts.append(f"{community} community")
    return BadgeText("evals", " · ".join(parts), "verified" if verified else "community")


def datastore_badge(prs: list[PrHistory]) -> BadgeText:
    """An Every Eval Ever datastore's open PRs, by each PR's newest verdict: how many are
    ready to merge and how many are not."""
    newest = [pr.verdicts[0] for pr in prs if pr.verdicts]
    live = [v for v in newest if v.state in ("open", "draft")]
    if not live:
        return BadgeText("submissions", "none open", "none")
    ready = sum(1 for v in live if v.ok)
    parts = [f"{ready} ready"] if ready else []
    if len(live) > ready:
        parts.append(f"{len(live) - ready} not ready")
    tone = "errors" if len(live) > ready else "verified"
    return BadgeText("submissions", " · ".join(parts), tone)


def benchmark_badge(prs: list[PrHistory], benchmark: str) -> BadgeText:
    """The newest merged result for one benchmark: its value and whether it is verified."""
    label = benchmark.rsplit("/", 1)[-1]
    wanted = benchmark.lower()
    for pr in prs:  # newest PR first
        if not pr.verdicts or pr.verdicts[0].state != "merged":
            continue
        for entry in pr.verdicts[0].entries:
            if entry.benchmark.lower() == wanted and entry.badges:
                tone = "verified" if "verified" in entry.badges else "community"
                return BadgeText(label, f"{entry.value} · {tone}", tone)
    return BadgeText(label, "no result checked", "none")


def render_svg(badge: BadgeText) -> str:
    left_w = round(len(badge.label) * _CHAR_PX) + 2 * _PAD_PX
    right_w = round(len(badge.message) * _CHAR_PX) + 2 * _PAD_PX
    width = left_w + right_w
    label, message = escape(badge.label), escape(badge.message)
    colour = COLOURS[badge.tone]
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="20" role="img" '
        f'aria-label="{label}: {message}"><title>{label}: {message}</title>'
        f'<rect width="{left_w}" height="20" rx="3" fill="#374151"/>'
        f'<rect x="{left_w}" width="{right_w}" height="20" rx="3" fill="{colour}"/>'
        f'<rect x="{left_w}" width="4" height="20" fill="{colour}"/>'
        '<g fill="#fff" font-family="Verdana,DejaVu Sans,Geneva,sans-serif" font-size="11" '
        'text-anchor="middle">'
        f'<text x="{left_w / 2:.1f}" y="14">{label}</text>'
        f'<text x="{left_w + right_w / 2:.1f}" y="14">{message}</text></g></svg>'
    )
