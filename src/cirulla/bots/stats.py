"""The arena's statistics: a mean with its standard error and interval, a running
mean for the progress bar and the plot, and the Wilson interval for win rates.

Intervals use the normal approximation (z = 1.96 for 95%), not Student's t: an
arena plays hundreds of paired decks, where the two differ by well under 1%
(at 30 pairs t is 2.045, 4% wider); keeping to the standard library's
`statistics.NormalDist` spares a dependency. Below two values there is no
standard error and the interval is None (JSON null, never NaN).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from statistics import NormalDist
from typing import Any

__all__ = [
    "MeanEstimate",
    "RunningMean",
    "Tally",
    "mean_estimate",
    "wilson_interval",
    "z_value",
]


def z_value(confidence: float = 0.95) -> float:
    """The two-sided normal quantile: 1.959964 for 95%."""
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be between 0 and 1, not {confidence!r}")
    return NormalDist().inv_cdf(0.5 + confidence / 2)


@dataclass(frozen=True, slots=True)
class MeanEstimate:
    """A sample mean with its spread: `sd` is the sample standard deviation (n - 1),
    `se` = sd / sqrt(n), `low`..`high` the normal interval mean -+ z * se."""

    n: int
    mean: float | None
    sd: float | None
    se: float | None
    low: float | None
    high: float | None
    confidence: float = 0.95

    def to_dict(self) -> dict[str, Any]:
        ci = None if self.low is None or self.high is None else [self.low, self.high]
        return {
            "n": self.n,
            "mean": self.mean,
            "sd": self.sd,
            "se": self.se,
            f"ci{round(self.confidence * 100)}": ci,
            "interval": "normal",
        }


class RunningMean:
    """Welford's running mean and variance: the progress bar's and the plot's running
    margin, in O(1) per value and without the cancellation of a sum of squares."""

    def __init__(self, confidence: float = 0.95) -> None:
        self.confidence = confidence
        self._z = z_value(confidence)
        self.n = 0
        self._mean = 0.0
        self._m2 = 0.0

    def add(self, value: float) -> None:
        self.n += 1
        delta = value - self._mean
        self._mean += delta / self.n
        self._m2 += delta * (value - self._mean)

    def estimate(self) -> MeanEstimate:
        if self.n == 0:
            return MeanEstimate(0, None, None, None, None, None, self.confidence)
        if self.n == 1:
            return MeanEstimate(1, self._mean, None, None, None, None, self.confidence)
        sd = math.sqrt(self._m2 / (self.n - 1))
        se = sd / math.sqrt(self.n)
        half = self._z * se
        return MeanEstimate(
            self.n, self._mean, sd, se, self._mean - half, self._mean + half, self.confidence
        )


def mean_estimate(values: Iterable[float], confidence: float = 0.95) -> MeanEstimate:
    """Mean, standard error and normal interval of `values` (e.g. the paired margins)."""
    running = RunningMean(confidence)
    for value in values:
        running.add(value)
    return running.estimate()


def wilson_interval(successes: int, n: int, confidence: float = 0.95) -> tuple[float, float] | None:
    """Wilson's score interval for a proportion: unlike p -+ z*se it stays inside 0..1
    and is sound for few trials or rates near 0 or 1. None when n is 0."""
    if n < 0 or not 0 <= successes <= n:
        raise ValueError(f"need 0 <= successes <= n, not {successes} of {n}")
    if n == 0:
        return None
    z = z_value(confidence)
    p = successes / n
    z2 = z * z
    denominator = 1 + z2 / n
    centre = (p + z2 / (2 * n)) / denominator
    half = z / denominator * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n))
    low = 0.0 if successes == 0 else max(0.0, centre - half)  # exact ends, no 1e-17
    high = 1.0 if successes == n else min(1.0, centre + half)
    return low, high


@dataclass(frozen=True, slots=True)
class Tally:
    """Won, lost and tied, from A's point of view."""

    won: int = 0
    lost: int = 0
    tied: int = 0

    @property
    def played(self) -> int:
        return self.won + self.lost + self.tied

    def to_dict(self) -> dict[str, Any]:
        played = self.played
        return {
            "played": played,
            "won": self.won,
            "lost": self.lost,
            "tied": self.tied,
            "won_rate": self.won / played if played else None,
        }
