"""The report's plots as Plotly figures, from gathered results (data in, figures out; no HTML here)."""

from __future__ import annotations

import plotly.graph_objects as go
from plotly.subplots import make_subplots
from plotly.colors import qualitative

from .gather import Rate, SuiteTable

_PALETTE = qualitative.Plotly  # policies
_CAUSES = qualitative.Set2  # failure causes: other colours than the policies'
_LAYOUT = dict(template="plotly_white", margin=dict(l=60, r=20, t=50, b=60), legend=dict(orientation="h", y=-0.25))


def colour(index: int) -> str:
    return _PALETTE[index % len(_PALETTE)]


def _rate_bars(name: str, x: list[str], rates: list[Rate | None], index: int) -> go.Bar:
    """Success rates (percent) with asymmetric Wilson 95 % error bars; None leaves a gap."""
    y, plus, minus, text = [], [], [], []
    for r in rates:
        low, high = r.interval if r is not None else (0.0, 0.0)
        y.append(None if r is None else 100 * r.rate)
        plus.append(0.0 if r is None else 100 * (high - r.rate))
        minus.append(0.0 if r is None else 100 * (r.rate - low))
        text.append("" if r is None else f"{r.successes}/{r.episodes}, 95% CI {100 * low:.0f}-{100 * high:.0f}%")
    return go.Bar(name=name, x=x, y=y, marker_color=colour(index), hovertext=text, hoverinfo="x+name+text",
                  error_y=dict(type="data", symmetric=False, array=plus, arrayminus=minus, thickness=1.2))


def leaderboard_heatmap(table: SuiteTable) -> go.Figure:
    """Policies x conditions, coloured by success rate; verified results only."""
    names = [c.name for c in table.suite.conditions]
    z, text = [], []
    for policy in table.policies:
        row = [r if r is not None and r.report.verified else None for r in table.row(policy)]
        z.append([None if r is None else 100 * r.rate.rate for r in row])
        text.append(["" if r is None else f"{r.rate.successes}/{r.rate.episodes}" for r in row])
    fig = go.Figure(go.Heatmap(z=z, x=names, y=table.policies, text=text, texttemplate="%{text}", zmin=0, zmax=100,
                               colorscale="Viridis", colorbar=dict(title="success %"), hoverongaps=False))
    fig.update_layout(**_LAYOUT, title=f"{table.suite.name}: success rate per condition",
                      height=180 + 40 * len(table.policies), yaxis=dict(autorange="reversed"))
    return fig


def condition_bars(table: SuiteTable) -> go.Figure:
    names = [c.name for c in table.suite.conditions]
    fig = go.Figure()
    for i, policy in enumerate(table.policies):
        rates = [r.rate if r is not None and r.report.verified else None for r in table.row(policy)]
        fig.add_trace(_rate_bars(policy, names, rates, i))
    fig.update_layout(**_LAYOUT, barmode="group", title="Success rate with Wilson 95 % intervals",
                      yaxis=dict(title="success %", range=[0, 105]))
    return fig


def breakdown_bars(table: SuiteTable, breakdowns: dict[str, dict[str, dict[str, Rate]]]) -> go.Figure:
    """One panel per axis (the suite's groups), episodes pooled over each group's conditions."""
    fig = make_subplots(rows=1, cols=len(breakdowns), shared_yaxes=True, subplot_titles=list(breakdowns))
    for col, groups in enumerate(breakdowns.values(), start=1):
        labels = list(groups)
        for i, policy in enumerate(table.policies):
            bars = _rate_bars(policy, labels, [groups[g].get(policy) for g in labels], i)
            fig.add_trace(bars.update(legendgroup=policy, showlegend=col == 1), row=1, col=col)
    fig.update_layout(**_LAYOUT, barmode="group", title="Success rate by group (episodes pooled, Wilson 95 % intervals)")
    fig.update_yaxes(range=[0, 105])
    fig.update_yaxes(title="success %", row=1, col=1)
    return fig


def failure_causes(table: SuiteTable) -> go.Figure | None:
    """Failed episodes per condition, stacked by cause; one bar per (policy, condition). None if none failed."""
    results = [r for p in table.policies for r in table.row(p) if r is not None and r.report.verified and r.report.causes]
    if not results:
        return None
    label = (lambda r: f"{r.condition.name} · {r.policy}") if len(table.policies) > 1 else (lambda r: r.condition.name)
    causes = sorted({c for r in results for c in r.report.causes})
    fig = go.Figure()
    for i, cause in enumerate(causes):
        fig.add_trace(go.Bar(name=cause, y=[label(r) for r in results], x=[r.report.causes.get(cause, 0) for r in results],
                             orientation="h", marker_color=_CAUSES[i % len(_CAUSES)]))
    fig.update_layout(**_LAYOUT, barmode="stack", title="Failure causes (failed episodes)",
                      height=200 + 28 * len(results), xaxis=dict(title="episodes"), yaxis=dict(autorange="reversed"))
    return fig


def steps_to_success(table: SuiteTable) -> go.Figure | None:
    """Distribution of the step at which each successful episode succeeded; None if none succeeded."""
    fig = go.Figure()
    for i, policy in enumerate(table.policies):
        mine = [r for r in table.row(policy) if r is not None and r.report.steps_to_success]
        if mine:
            fig.add_trace(go.Box(name=policy, x=[r.condition.name for r in mine for _ in r.report.steps_to_success],
                                 y=[s for r in mine for s in r.report.steps_to_success], boxpoints="all",
                                 jitter=0.3, marker_color=colour(i)))
    if not fig.data:
        return None
    fig.update_layout(**_LAYOUT, boxmode="group", title="Steps to success", yaxis=dict(title="control steps"))
    return fig
