"""What an inferential item records about itself: written by the task, read by the analyses.

One typed model instead of a dict read by key in several modules: the task writes it into each
item's metadata (stored with the result), and the analyses, the echo baseline and re-scoring
read it back through `ItemMeta.read`, which names the item when a stored record is unreadable.
"""

from collections.abc import Mapping

from pydantic import BaseModel, ConfigDict, JsonValue

from rulebench.core.items import read_metadata

SAMPLE_FACTS = ("hops", "field", "label", "domain", "depth")
"""Sample facts worth grouping results by, copied into the metadata when a sample has them."""


class ItemMeta(BaseModel):
    """One inferential item: its question, cell, listed rules and gold.

    The cell is every setting that shapes the prompt (quantity, form, CoT, shots...).
    """

    # Sample facts (SAMPLE_FACTS) ride along as extra keys; runs stored before a field existed
    # read with its default.
    model_config = ConfigDict(frozen=True, extra="allow")

    task: str
    sample_id: str = ""
    """The question: a generated task's factual and counterfactual items (and its CoT and
    direct items) share it, which is what pairs them."""
    setting: str = ""
    """The setting's label, e.g. "few/nl/cot/2-shot/cf"."""
    cell: str = ""
    """Task and setting label: what the results table groups by."""
    quantity: str
    form: str
    cot: bool
    shots: int = 0
    counterfactual: bool
    layout: str = "per-item"
    cite_rule: bool = False
    """The prompt asked for "Applied rule: N" (the behaviour analysis)."""
    golden_index: int | None = None
    """The golden rule's number in the listed rules (1-based); None without rules."""
    listed_rules: tuple[str, ...] = ()
    gold: str = ""
    """The gold answer of this item (the counterfactual one where that applies)."""
    repeat: int = 0
    prompts: str = "rulebench"
    """Whose wording the prompt is in ("rulebench" or "upstream"); older runs: rulebench."""
    rule_draw: str = ""
    """Whose choice the listed rules are where it is not rulebench's (upstream prompts:
    "upstream's, seeded by rulebench (seed S)")."""

    @classmethod
    def read(cls, metadata: Mapping[str, JsonValue], item_id: str = "") -> "ItemMeta":
        """The typed metadata of a stored item; a StoreError naming the item if unreadable."""
        return read_metadata(cls, metadata, item_id)

    def facts(self) -> dict[str, JsonValue]:
        """The sample facts this item carries (hops, field...)."""
        extra = self.model_extra or {}
        return {key: extra[key] for key in SAMPLE_FACTS if key in extra}
