"""Means with 95% confidence intervals, and the test that says two bots are separated."""

import math

# Two-sided 95% Student t quantiles by degrees of freedom; 1.96 beyond the table.
_T95 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179,
        2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064,
        2.060, 2.056, 2.052, 2.048, 2.045, 2.042]
MIN_SAMPLES = 5  # fewer samples than this never separate anything


def t95(df: int) -> float:
    return _T95[df - 1] if 1 <= df <= len(_T95) else 1.96


def mean_ci(xs) -> tuple[float, float]:
    """(mean, half-width of the 95% interval); the half-width is inf below 2 samples."""
    n = len(xs)
    if n == 0:
        return 0.0, math.inf
    m = sum(xs) / n
    if n < 2:
        return m, math.inf
    var = sum((x - m) ** 2 for x in xs) / (n - 1)
    return m, t95(n - 1) * math.sqrt(var / n)


def separated(diffs) -> bool:
    """True when the paired differences a - b show a better than b at 95% confidence
    (a difference the other way round means the order is wrong, not separated)."""
    if len(diffs) < MIN_SAMPLES:
        return False
    m, h = mean_ci(diffs)
    return m > h
