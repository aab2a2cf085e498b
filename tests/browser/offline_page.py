"""What a page opened offline in the browser did: the requests it tried, the errors it raised."""

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from playwright.sync_api import Page


@dataclass
class OfflinePage:
    """A page opened from disk with every other request aborted, and what it tried to do."""

    page: "Page"
    requests: list[str] = field(default_factory=list)
    """Every URL the page asked for besides its own file; each was aborted."""
    problems: list[str] = field(default_factory=list)
    """Console errors, uncaught exceptions and dialogs (each dialog dismissed)."""
