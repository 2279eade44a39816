"""Confidence intervals for success rates."""

from __future__ import annotations

from scipy.stats import binomtest


def wilson(successes: int, episodes: int, confidence: float = 0.95) -> tuple[float, float]:
    """The Wilson score interval of `successes` out of `episodes`.

    Unlike the normal approximation it stays inside [0, 1] and is not
    zero-wide at 0/n or n/n, which small runs and strong policies both hit.
    """
    if episodes < 1 or not 0 <= successes <= episodes:
        raise ValueError(f"no interval for {successes} successes in {episodes} episodes")
    ci = binomtest(successes, episodes).proportion_ci(confidence, method="wilson")
    return float(ci.low), float(ci.high)
