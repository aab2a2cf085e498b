"""Pure statistics every report needs: accuracy with a confidence interval."""

import math

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
