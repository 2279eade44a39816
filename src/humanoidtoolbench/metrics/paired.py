"""Two policies compared on the same seeds: per condition, the exact McNemar test and the paired difference.

A seed fixes an episode's layout, so two policies run on one seed face the
same episode: the pairs where both succeed or both fail say nothing about
which is better, and the test looks at the discordant ones only (A alone
succeeded: `b`; B alone: `c`). Under "no difference" each discordant pair is
a fair coin, so the exact two-sided p is the binomial test of `b` in `b + c`
(McNemar's exact test); no p below 0.05 is possible with fewer than six
discordant pairs. Across conditions the p-values are adjusted by Holm's
step-down method, so that "established on some condition" keeps its 5 %.
The difference in success rate, (b - c) / n, gets Newcombe's hybrid score
interval for paired proportions (his method 10: Wilson intervals of the two
rates combined with their correlation), which stays inside [-1, 1] and is
not zero-wide at 0/n or n/n. Pure functions on counts; no simulator.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from scipy.stats import binomtest

from .stats import wilson

ALPHA = 0.05


@dataclass(frozen=True)
class Pairs:
    """Outcomes on shared seeds: both succeed (a), A alone (b), B alone (c), neither (d)."""

    a: int
    b: int
    c: int
    d: int

    @classmethod
    def of(cls, first: dict[int, bool], second: dict[int, bool]) -> "Pairs":
        """The table of two seed -> success maps, over the seeds they share."""
        shared = sorted(set(first) & set(second))
        count = lambda x, y: sum(first[s] is x and second[s] is y for s in shared)  # noqa: E731
        return cls(count(True, True), count(True, False), count(False, True), count(False, False))

    @property
    def n(self) -> int:
        return self.a + self.b + self.c + self.d

    @property
    def difference(self) -> float:
        """A's success rate minus B's on the shared seeds."""
        return (self.b - self.c) / self.n


def mcnemar_exact(b: int, c: int) -> float:
    """Two-sided exact McNemar p: `b` of `b + c` discordant pairs under a fair coin (1.0 with none)."""
    if b + c == 0:
        return 1.0
    return float(min(1.0, binomtest(b, b + c, 0.5).pvalue))


def newcombe_interval(p: Pairs, confidence: float = 0.95) -> tuple[float, float]:
    """Newcombe's (1998) method-10 interval for A's rate minus B's on paired outcomes."""
    n = p.n
    if n < 1:
        raise ValueError("no interval without shared seeds")
    p1, p2 = (p.a + p.b) / n, (p.a + p.c) / n
    l1, u1 = wilson(p.a + p.b, n, confidence)
    l2, u2 = wilson(p.a + p.c, n, confidence)
    cross = p.a * p.d - p.b * p.c
    if cross > 0:
        cross = max(cross - n / 2, 0.0)
    margins = (p.a + p.b) * (p.c + p.d) * (p.a + p.c) * (p.b + p.d)
    phi = cross / math.sqrt(margins) if margins else 0.0
    diff = p1 - p2
    low = diff - math.sqrt(max((p1 - l1) ** 2 - 2 * phi * (p1 - l1) * (u2 - p2) + (u2 - p2) ** 2, 0.0))
    high = diff + math.sqrt(max((u1 - p1) ** 2 - 2 * phi * (u1 - p1) * (p2 - l2) + (p2 - l2) ** 2, 0.0))
    return max(-1.0, low), min(1.0, high)


def holm(pvalues: list[float]) -> list[float]:
    """Holm's step-down adjusted p-values, in the order given."""
    order = sorted(range(len(pvalues)), key=pvalues.__getitem__)
    adjusted, running = [0.0] * len(pvalues), 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (len(pvalues) - rank) * pvalues[i]))
        adjusted[i] = running
    return adjusted


@dataclass(frozen=True)
class Comparison:
    """One condition's paired comparison."""

    condition: str
    pairs: Pairs
    p: float
    p_holm: float
    interval: tuple[float, float]

    @property
    def established(self) -> bool:
        """The difference is established where the Holm-adjusted exact p is below 5 %."""
        return self.p_holm < ALPHA

    def to_json(self) -> dict:
        p = self.pairs
        return {
            "condition": self.condition, "shared_seeds": p.n, "a_successes": p.a + p.b, "b_successes": p.a + p.c,
            "both": p.a, "a_only": p.b, "b_only": p.c, "neither": p.d, "difference": p.difference,
            "interval_95": list(self.interval), "mcnemar_p": self.p, "holm_p": self.p_holm, "established": self.established,
        }


def compare(tables: dict[str, Pairs]) -> list[Comparison]:
    """Each condition's comparison (conditions without shared seeds are left out), Holm-adjusted together."""
    named = [(name, pairs) for name, pairs in tables.items() if pairs.n]
    raw = [mcnemar_exact(p.b, p.c) for _, p in named]
    return [Comparison(name, pairs, p, adjusted, newcombe_interval(pairs))
            for (name, pairs), p, adjusted in zip(named, raw, holm(raw))]


def mean_difference(comparisons: list[Comparison]) -> float | None:
    """The unweighted mean over conditions of the paired differences, like the suites' mean success rate."""
    return sum(c.pairs.difference for c in comparisons) / len(comparisons) if comparisons else None


def markdown(comparisons: list[Comparison], first: str, second: str) -> str:
    lines = [
        f"## Paired comparison: A = {first}, B = {second}", "",
        "| Condition | Seeds | A | B | both | A only | B only | neither | A − B | 95 % CI | McNemar p | Holm p | |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for c in comparisons:
        p, (low, high) = c.pairs, c.interval
        verdict = ("A better" if p.b > p.c else "B better") if c.established else "not established"
        lines.append(
            f"| {c.condition} | {p.n} | {p.a + p.b} | {p.a + p.c} | {p.a} | {p.b} | {p.c} | {p.d} | {p.difference:+.3f} "
            f"| [{low:+.3f}, {high:+.3f}] | {c.p:.4g} | {c.p_holm:.4g} | {verdict} |"
        )
    mean = mean_difference(comparisons)
    lines += ["", f"Mean difference over {len(comparisons)} condition(s): {mean:+.3f}" if mean is not None else "No shared seeds."]
    established = [c.condition for c in comparisons if c.established]
    lines.append(
        f"Established (Holm-adjusted exact McNemar p < {ALPHA:g}) on: {', '.join(established)}" if established else
        f"No difference is established on any condition (Holm-adjusted exact McNemar p < {ALPHA:g}); "
        "the intervals say how large a difference the episodes still allow."
    )
    return "\n".join(lines) + "\n"


# What two runs of one condition must share for a seed to mean the same episode.
SAME = ("max_steps", "controller", "look", "options", "protocol")


def settings_problem(name: str, first: dict, second: dict) -> str | None:
    """Why the runs' configurations make their seeds different episodes, in one line, or None."""
    for field in SAME:
        if first.get(field) != second.get(field):
            return (f"{name}: A ran with {field} {first.get(field)!r} and B with {second.get(field)!r}; "
                    "a seed is the same episode only under the same settings")
    return None
