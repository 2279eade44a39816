"""The report as one HTML page: tables written here, plots embedded from `figures`, videos as relative links.

The page loads Plotly from `plotly.min.js` beside it, so it opens offline
from the folder alone. Every recorded string (policy names, causes, reasons,
paths) is escaped.
"""

from __future__ import annotations

import re
import statistics
from dataclasses import dataclass
from html import escape
from pathlib import Path

from . import figures
from .gather import Rate, Result, SuiteTable
from .report import Section

PLOTLY_JS = "plotly.min.js"
GENERATOR = "htb-report"

_STYLE = """
body { font: 14px/1.45 system-ui, sans-serif; margin: 24px auto; max-width: 1500px; padding: 0 16px; color: #222; }
h1 { margin-bottom: 4px; } h2 { border-bottom: 2px solid #ccc; margin-top: 40px; } h3 { margin-top: 28px; }
table { border-collapse: collapse; margin: 8px 0 16px; } th, td { border: 1px solid #ddd; padding: 3px 6px; vertical-align: top; }
th { background: #f4f4f4; } td.num { text-align: right; white-space: nowrap; }
table.leaderboard th.cond { writing-mode: vertical-rl; transform: rotate(180deg); white-space: nowrap; font-weight: normal; }
table.leaderboard td.cell { text-align: center; white-space: nowrap; }
.ci, .n, .note { color: #666; font-size: 12px; } .ci, .n { display: block; }
.not-reportable { background: #fff6e0; } .not-verified { background: #fde2e2; } .missing { color: #aaa; }
.marker { font-weight: bold; color: #b35c00; } .not-verified .marker, .marker.bad { color: #b00020; }
.breakdowns { display: flex; flex-wrap: wrap; gap: 24px; }
.videos { display: flex; flex-wrap: wrap; gap: 12px; } figure { margin: 0; } video { width: 320px; background: #000; }
figcaption { font-size: 12px; color: #555; } pre { background: #f7f7f7; padding: 8px; overflow-x: auto; }
"""


@dataclass(frozen=True)
class Copy:
    """A recorded file the page links to, and where it goes inside the report folder."""

    source: Path
    dest: str


def _pct(x: float) -> str:
    return f"{100 * x:.0f}%"


def _rate_cell(rate: Rate) -> str:
    low, high = rate.interval
    return (f'<span class="rate">{_pct(rate.rate)}</span><span class="ci">{_pct(low)}–{_pct(high)}</span>'
            f'<span class="n">{rate.successes}/{rate.episodes}</span>')


def _state(result: Result) -> tuple[str, str]:
    """CSS class and marker of a result that is not verified or not reportable."""
    if not result.report.verified:
        return "not-verified", '<span class="marker" title="its files changed after validation">NOT VERIFIED</span>'
    if not result.report.reportable:
        why = "; ".join(result.report.reasons) or "not reportable"
        return "not-reportable", f'<span class="marker" title="not reportable: {escape(why)}">†</span>'
    return "", ""


def _table(css: str, head: list[str], rows: list[str]) -> str:
    """A table from header labels (escaped here) and finished `<tr>` rows."""
    th = "".join(f"<th>{escape(h)}</th>" for h in head)
    return f'<table class="{css}"><thead><tr>{th}</tr></thead><tbody>{"".join(rows)}</tbody></table>'


def _leaderboard(table: SuiteTable) -> str:
    conds = table.suite.conditions
    rows = []
    for policy in table.policies:
        mean, found = table.mean(policy), table.verified(policy)
        mean_cell = _pct(mean) if mean is not None else f'—<span class="n">{len(found)} of {len(conds)} conditions</span>'
        flag = ' <span class="marker">(not reportable)</span>' if any(not r.report.reportable for r in found) else ""
        cells = []
        for result in table.row(policy):
            if result is None:
                cells.append('<td class="cell missing">—</td>')
                continue
            css, marker = _state(result)
            rate = result.rate
            body = _rate_cell(rate) if result.report.verified else f"{rate.successes}/{rate.episodes}"
            cells.append(f'<td class="cell {css}">{body}{marker}</td>')
        rows.append(f'<tr class="policy"><th>{escape(policy)}{flag}</th><td class="num">{mean_cell}</td>{"".join(cells)}</tr>')
    conds_head = "".join(f'<th class="cond">{escape(c.name)}</th>' for c in conds)
    return (f'<table class="leaderboard"><thead><tr><th>Policy</th><th>Mean</th>{conds_head}</tr></thead>'
            f'<tbody>{"".join(rows)}</tbody></table>'
            '<p class="note">Each cell: success rate, Wilson 95 % interval, successes/episodes. † not reportable '
            "(hover for why); NOT VERIFIED: files changed after validation, in no mean or plot. The mean is the "
            "unweighted mean of the condition success rates, given when every condition has a verified result.</p>")


def _breakdown_table(table: SuiteTable, groups: dict[str, dict[str, Rate]]) -> str:
    rows = []
    for policy in table.policies:
        cells = "".join(f'<td class="cell">{_rate_cell(groups[g][policy])}</td>' if policy in groups[g]
                        else '<td class="cell missing">—</td>' for g in groups)
        rows.append(f"<tr><th>{escape(policy)}</th>{cells}</tr>")
    return _table("breakdown", ["Policy", *groups], rows)


def _per_condition(table: SuiteTable) -> str:
    rows = []
    for result in _results(table):
        r = result.report
        css, marker = _state(result)
        median, causes = "—", "its files no longer match"
        if r.verified:
            median = "—" if r.median_steps is None else f"{r.median_steps:g}"
            causes = "; ".join(f"{escape(c)} ({n})" for c, n in r.causes.most_common()) or "none"
        rows.append(f'<tr class="{css}"><td>{escape(result.condition.name)}{marker}</td><td>{escape(result.policy)}</td>'
                    f'<td class="num">{r.successes}/{r.episodes}</td><td class="num">{median}</td><td>{causes}</td></tr>')
    return _table("per-condition", ["Condition", "Policy", "Successes", "Median steps to success", "Failure causes"], rows)


def _code(text: str | None) -> str:
    """A digest or commit, shortened to 12 characters."""
    return f"<code>{escape((text or '—')[:12])}</code>"


class _Unread:
    """The provenance shown for a result that does not parse as one (it is NOT VERIFIED)."""

    controller = robot_variant = source_digest = finished_at = "—"
    assets: dict = {}
    code: dict = {}
    versions: dict = {}


_UNREAD = _Unread()


def _provenance(table: SuiteTable) -> str:
    rows = []
    for result in _results(table):
        rec = result.record or _UNREAD
        reportable = "reportable"
        if not result.report.reportable:
            why = "; ".join(result.report.reasons) or "no reason recorded"
            reportable = f'<span class="marker bad">not reportable</span>: {escape(why)}'
        verified = "yes" if result.report.verified else '<span class="marker bad">NOT VERIFIED</span>'
        dirty = " (uncommitted changes)" if rec.code.get("git_dirty") else ""
        cells = [escape(result.condition.name), escape(result.policy), reportable, verified, escape(str(result.run_dir)),
                 f"{escape(rec.controller)} / {escape(rec.robot_variant)} / {escape(rec.look)}", _code(rec.source_digest),
                 _code(rec.assets.get("manifest_sha256")),
                 _code(rec.code.get("git_commit") or rec.code.get("package_version")) + dirty,
                 escape(", ".join(f"{k} {v}" for k, v in sorted(rec.versions.items()))), escape(rec.finished_at)]
        css = "reportable" if result.report.reportable else "not-reportable"
        rows.append(f'<tr class="provenance-row {css}">' + "".join(f"<td>{c}</td>" for c in cells) + "</tr>")
    head = ["Condition", "Policy", "Reportable", "Verified", "Run", "Controller / robot / look", "Source digest",
            "Asset manifest", "Code", "Versions", "Finished"]
    return _table("provenance", head, rows)


def _videos(table: SuiteTable, copies: list[Copy]) -> str:
    blocks = []
    for cond in table.suite.conditions:
        figs = []
        for index, policy in enumerate(table.policies):
            result = table.cells.get((policy, cond.name))
            for video in result.videos if result is not None else []:
                kind = "success" if video.success else "failure"
                dest = f"videos/{_slug(cond.name)}/p{index}-{kind}-{video.seed}-{_slug(video.camera)}.mp4"
                copies.append(Copy(video.source, dest))
                caption = f"{escape(policy)}: {kind}, seed {video.seed}, {escape(video.camera)}"
                figs.append(f'<figure class="{kind}"><video controls muted preload="metadata" src="{escape(dest)}"></video>'
                            f"<figcaption>{caption}</figcaption></figure>")
        if figs:
            blocks.append(f'<h4>{escape(cond.name)}</h4><div class="videos">{"".join(figs)}</div>')
    return "".join(blocks) or '<p class="note">No videos (runs recorded without cameras, or none verified).</p>'


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", text)


def _results(table: SuiteTable) -> list[Result]:
    return [table.cells[(p, c.name)] for c in table.suite.conditions for p in table.policies if (p, c.name) in table.cells]


class _Plots:
    """Embeds figures as divs with stable ids (the page is the same bytes for the same results)."""

    def __init__(self) -> None:
        self.count = 0

    def __call__(self, fig) -> str:
        if fig is None:
            return ""
        self.count += 1
        div = fig.to_html(full_html=False, include_plotlyjs=False, div_id=f"plot-{self.count}",
                          config={"displaylogo": False, "responsive": True})
        return f'<div class="plot">{div}</div>'


def _suite_section(table: SuiteTable, plot: _Plots, copies: list[Copy]) -> str:
    name = escape(table.suite.name)
    parts = [f'<section class="suite" id="suite-{name}"><h2>{name}</h2>', "<h3>Leaderboard</h3>", _leaderboard(table),
             plot(figures.leaderboard_heatmap(table)), plot(figures.condition_bars(table))]
    breakdowns = table.breakdowns()
    if breakdowns:
        parts += ["<h3>Breakdowns</h3>", '<div class="breakdowns">']
        parts += [f"<div><h4>{escape(axis)}</h4>{_breakdown_table(table, groups)}</div>"
                  for axis, groups in breakdowns.items()]
        parts += ["</div>", plot(figures.breakdown_bars(table, breakdowns))]
    parts += ["<h3>Failure causes and steps to success</h3>", _per_condition(table), plot(figures.failure_causes(table)),
              plot(figures.steps_to_success(table)), "<h3>Sample videos</h3>", _videos(table, copies),
              "<h3>Provenance</h3>", _provenance(table), "</section>"]
    return "\n".join(p for p in parts if p)


def render(title: str, sources: list[Path], tables: list[SuiteTable],
           offline: list[Section]) -> tuple[str, list[Copy]]:
    """The page and the recorded files it links to."""
    plot, copies = _Plots(), []
    sections = [_suite_section(t, plot, copies) for t in tables]
    extra = "".join(f"<h3>{escape(s.suite)}: {escape(s.policy)}</h3><pre>{escape(s.text)}</pre>" for s in offline)
    if extra:
        heading = "<h2>Scored by the suites from their own recordings</h2>"
        sections.append(f'<section class="offline">{heading}{extra}</section>')
    nav = " · ".join(f'<a href="#suite-{escape(t.suite.name)}">{escape(t.suite.name)}</a>' for t in tables)
    results = sum(len(t.cells) for t in tables)
    episodes = [r.report.episodes for t in tables for r in t.cells.values()]
    page = f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="generator" content="{GENERATOR}">
<title>{escape(title)}</title><style>{_STYLE}</style><script src="{PLOTLY_JS}"></script></head>
<body><h1>{escape(title)}</h1>
<p class="note">{results} validated results ({sum(episodes)} episodes, median {statistics.median(episodes):g} per result) from
{", ".join(escape(str(s)) for s in sources)}. Suites: {nav}.</p>
{chr(10).join(sections)}
</body></html>
"""
    return page, copies
