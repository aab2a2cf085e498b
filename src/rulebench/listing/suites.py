"""The suites `--suite` takes: the generated ones with their sizes, and the official releases'.

`OFFICIAL_RELEASE_CASES` is the one place the official releases' case counts are written.
"""

from typing import Literal

from rulebench.core.cases import Bucket
from rulebench.listing.entry import Listed
from rulebench.scenarios.run_cases import GeneratedSuite
from rulebench.scenarios.suites.slots import Strategy

OFFICIAL_RELEASE_CASES: dict[Literal["v3", "v1"], dict[str, int]] = {
    "v3": {"benign": 475, "basic": 475, "redteam": 745},
    "v1": {"manual": 870, "systematic": 862, "justask": 440},
}
"""Case counts of the official releases (spec), for files given to `--suite` (not bundled)."""


class ListedGeneratedSuite(Listed):
    """A suite rulebench generates, at the official v3 sizes."""

    name: GeneratedSuite
    source: Literal["generated"] = "generated"
    cases: int
    """Cases with `--full`: the official release's size."""
    buckets: dict[Bucket, int]
    """Cases per bucket with `--full`."""
    default_per_group: int | Literal["all"]
    """Cases per behavior a run takes by default (`ScenarioConfig.per_group`)."""
    default_cases: int | None
    """Cases a run takes by default, over every behavior (None: all)."""
    per_behavior: dict[str, int]
    """Cases per behavior with `--full`."""
    strategies: dict[Bucket, dict[Strategy, int]] | None = None
    """Red-team cases per bucket and attack strategy (redteam only)."""


class ListedOfficialSuite(Listed):
    """A suite of an official release, run from its files (`--suite FOLDER_OR_FILE`)."""

    name: str
    source: str
    """"official v3 files" or "official v1 files"."""
    cases: int
    default_per_group: Literal["all"] = "all"
    """Files the user names run whole."""


ListedSuite = ListedGeneratedSuite | ListedOfficialSuite


def list_suites() -> list[ListedSuite]:
    """The generated suites with their official sizes, then the official releases' suites."""
    from rulebench.scenarios.run_cases import GENERATED_SUITES

    found: list[ListedSuite] = [_generated(suite) for suite in GENERATED_SUITES]
    for version, suites in OFFICIAL_RELEASE_CASES.items():
        found += [
            ListedOfficialSuite(name=name, source=f"official {version} files", cases=cases)
            for name, cases in suites.items()
        ]
    return found


def _generated(suite: GeneratedSuite) -> ListedGeneratedSuite:
    from rulebench.scenarios.config import ScenarioConfig
    from rulebench.scenarios.suites.sizes import (
        BUCKET_BEHAVIORS,
        REDTEAM_STRATEGY_WEIGHTS,
        official_sizes,
    )
    from rulebench.scenarios.suites.slots import STRATEGIES

    sizes = official_sizes(suite)
    per_group: int | None = ScenarioConfig.model_fields["per_group"].default
    behaviors = sum(len(members) for members in BUCKET_BEHAVIORS.values())
    strategies = {
        bucket: dict(zip(STRATEGIES, weights, strict=True))
        for bucket, weights in REDTEAM_STRATEGY_WEIGHTS.items()
    }
    return ListedGeneratedSuite(
        name=suite,
        cases=sum(sizes.values()),
        buckets={b: sum(sizes[m] for m in members) for b, members in BUCKET_BEHAVIORS.items()},
        default_per_group="all" if per_group is None else per_group,
        default_cases=None if per_group is None else per_group * behaviors,
        per_behavior=sizes,
        strategies=strategies if suite == "redteam" else None,
    )
