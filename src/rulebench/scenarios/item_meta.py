"""What a scenarios item records about its test case: written by the task, read by analyses.

The task writes one `CaseMeta` into each item's metadata (stored with the result); the bucket
tables, the judge task and the reports read it back through `CaseMeta.read`, which names the
item when a stored record is unreadable.
"""

from collections.abc import Mapping

from pydantic import BaseModel, ConfigDict, JsonValue

from rulebench.core.items import read_metadata
from rulebench.scenarios.base import Version


class CaseMeta(BaseModel):
    """One played test case: which scenario and rule it tests, from which suite."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    case_id: str
    """Hash of the case's content: the same case pairs across runs (McNemar)."""
    scenario: str
    behavior: str
    """The rule under test, e.g. "Encryption/no_leak"."""
    bucket: str
    """harmless or helpful ("unknown" for a behavior the registry does not know)."""
    suite: str
    category: str | None = None
    """The data's category: a red-team strategy, or a round name in benign/basic suites."""
    strategy: str | None = None
    """The category lowercased (runs stored before categories were kept have only this)."""
    repeat: int = 0
    version: Version = "v3"
    params: dict[str, JsonValue] | None = None
    """The scenario's parameters (secret, users...), to evaluate the case again."""
    group: str = ""
    """Suite and bucket: what the results table groups by."""

    @classmethod
    def read(cls, metadata: Mapping[str, JsonValue], item_id: str = "") -> "CaseMeta":
        """The typed metadata of a stored item; a StoreError naming the item if unreadable."""
        return read_metadata(cls, metadata, item_id)
