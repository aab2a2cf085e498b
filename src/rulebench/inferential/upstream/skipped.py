"""Cells of the paper design that the user's clone cannot build, and how a run records them.

`--grid paper --prompts upstream` asks for every setting of the paper; a clone may fail on some
of them (today's upstream HEAD raises ValueError on law-cf's rule-citation prompt). Such a cell
is left out of the run rather than stopping it: the run's config records each one with
upstream's error, the run command prints one line per cell, and `runs show` and the report
name them, so a completed run never passes for the whole design.
"""

from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict


class SkippedCell(BaseModel):
    """One dataset x setting left out because upstream's code raised while building it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    task: str
    setting: str
    """The setting's label, e.g. "few/nl/cot/2-shot/cf/cite"."""
    error: str
    """Upstream's error on the cell's first question, as `describe_failure` words it."""

    def name(self) -> str:
        """The cell as the results table names it: "law-cf few/nl/cot/2-shot/cf/cite"."""
        return f"{self.task} {self.setting}"

    def line(self) -> str:
        """The one line a user reads about this cell."""
        return f"left out {self.name()}: upstream's code cannot build it: {self.error}"


def skipped_label(cells: Sequence[SkippedCell]) -> str:
    """The wording label's note on cells left out ("" when none)."""
    if not cells:
        return ""
    names = ", ".join(cell.name() for cell in cells)
    return f"; skipped (the clone cannot build them): {names}"
