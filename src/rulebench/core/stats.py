"""Pure statistics the reports need: Wilson and bootstrap intervals, McNemar's test."""

import math
import random
from collections import defaultdict
from collections.abc import Hashable, Iterable, Sequence

from pydantic import BaseModel, ConfigDict

# Two-sided 95% normal quantile.
Z_95 = 1.959963984540054


class Proportion(BaseModel):
    """A success rate with its Wilson 95% confidence interval (sound for small n and p near 0/1)."""

    model_config = ConfigDict(frozen=True)

    successes: float
    n: int
    low: float
    high: float

    @property
    def value(self) -> float:
        """The point estimate; NaN when there is nothing to count."""
        return self.successes / self.n if self.n else math.nan

    def format(self, digits: int = 1) -> str:
        """Render as a percentage with its interval, e.g. `62.5 [40.9, 80.0] (n=16)`."""
        if not self.n:
            return "n/a (n=0)"
        return (
            f"{100 * self.value:.{digits}f} "
            f"[{100 * self.low:.{digits}f}, {100 * self.high:.{digits}f}] (n={self.n})"
        )


def wilson_interval(successes: float, n: int, z: float = Z_95) -> Proportion:
    """Wilson score interval for a binomial proportion; fractional successes are allowed."""
    if n <= 0:
        return Proportion(successes=0, n=0, low=math.nan, high=math.nan)
    p = successes / n
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator
    return Proportion(
        successes=successes, n=n, low=max(0.0, centre - half), high=min(1.0, centre + half)
    )


def sample_means(scores: Iterable[tuple[Hashable, float]]) -> list[float]:
    """Each sample's mean score over its evaluations (`--repeats`), in first-seen order.

    Repeats of one sample are not independent observations: counting them as such would narrow
    an interval with no new information (three identical repeats would look like three times
    the data). Averaging per sample first, as inspect_ai's epochs reducer does, keeps n the
    number of samples.

    Args:
        scores: (sample key, score) per evaluation; a key shared by the repeats of one sample.
    """
    found: dict[Hashable, list[float]] = defaultdict(list)
    for key, score in scores:
        found[key].append(score)
    return [sum(values) / len(values) for values in found.values()]


def proportion_over_samples(scores: Iterable[tuple[Hashable, float]]) -> Proportion:
    """The mean of the per-sample mean scores with its Wilson interval over the samples.

    With one evaluation per sample this is the plain Wilson interval; repeats that agree give
    exactly the interval of one evaluation. Fractional per-sample means are treated as if they
    were Bernoulli outcomes, whose variance p(1 - p) is the largest a score in [0, 1] with mean
    p can have, so the interval errs on the wide side.
    """
    means = sample_means(scores)
    return wilson_interval(sum(means), len(means))


def bootstrap_mean_interval(
    groups: Sequence[Sequence[float]], resamples: int = 2000, seed: int = 0
) -> tuple[float, float, float]:
    """Mean of the groups' means, with a 95% percentile bootstrap interval.

    Each group is resampled with replacement on its own (the headline averages buckets of
    different sizes, each counted once), `resamples` times with a seeded generator.
    """
    groups = [list(g) for g in groups if g]
    if not groups:
        return (math.nan, math.nan, math.nan)
    rng = random.Random(seed)
    point = sum(sum(g) / len(g) for g in groups) / len(groups)
    means = sorted(
        sum(sum(rng.choices(g, k=len(g))) / len(g) for g in groups) / len(groups)
        for _ in range(resamples)
    )
    return (point, means[int(0.025 * resamples)], means[min(resamples - 1, int(0.975 * resamples))])


def mcnemar_exact(only_first: int, only_second: int) -> float:
    """Two-sided exact McNemar p-value from the discordant pairs (binomial test at p = 1/2).

    No discordant pair gives 1.0, which is only meaningful when there were paired cases at
    all: with none there is nothing to test, and reports say "n/a" instead of calling this.

    Args:
        only_first: pairs where the first run passed and the second failed.
        only_second: pairs where the second run passed and the first failed.
    """
    n = only_first + only_second
    if n == 0:
        return 1.0
    k = min(only_first, only_second)
    tail: float = sum(math.comb(n, i) for i in range(k + 1)) / 2**n
    return min(1.0, 2 * tail)
