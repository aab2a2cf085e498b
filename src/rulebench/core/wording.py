"""Whose words a prompt is in: rulebench's own, or upstream's, read from the user's clone.

Both papers' numbers depend on the exact instruction text. rulebench's own wording is the
default (it is clearer and gives an answer format); `upstream` sends the text the released code
sends, read at run time from the user's clone (never shipped), so numbers can be set beside the
papers' tables. The choice is recorded with every run and printed beside every score.
"""

from typing import Literal

from pydantic import BaseModel, ConfigDict, JsonValue, ValidationError

Prompts = Literal["rulebench", "upstream"]
PROMPTS: tuple[Prompts, ...] = ("rulebench", "upstream")


class UpstreamText(BaseModel):
    """Where a run's upstream prompt text came from: enough to tell two clones apart."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    project: str
    """The upstream repository, e.g. "forangel2014/llm-rule-following"."""
    root: str
    """The clone's folder as resolved when the run was made."""
    revision: str
    """"commit <40 hex>" for a git clone, else "files sha256:<hex>" of the files read."""
    files_sha256: str
    """Hash of the exact files the text was read from, so an edited checkout is told apart
    from the commit it sits on."""

    def short(self) -> str:
        """E.g. "commit 1a2b3c4d" or "files 89abcdef": what a report header shows."""
        kind, _, value = self.revision.partition(" ")
        value = value.removeprefix("sha256:")
        return f"{kind} {value[:8]}" if kind == "commit" else f"files {value[:8]}"


def prompts_label(prompts: Prompts, source: UpstreamText | None = None) -> str:
    """The header line for a run's wording, e.g. "prompts: upstream (clone at commit 1a2b3c4d)"."""
    if prompts == "rulebench":
        return "prompts: rulebench"
    if source is None:
        return "prompts: upstream"
    return f"prompts: upstream (clone at {source.short()})"


def label_of_record(prompts: JsonValue, source: JsonValue) -> str:
    """The label of a wording as a run stored it (its `prompts` and clone record).

    Runs stored before the choice existed hold no `prompts`: they used rulebench's wording. A
    clone record this version cannot read still names the wording, without the clone.
    """
    if prompts != "upstream":
        return prompts_label("rulebench")
    try:
        return prompts_label("upstream", UpstreamText.model_validate(source))
    except ValidationError:
        return prompts_label("upstream")
