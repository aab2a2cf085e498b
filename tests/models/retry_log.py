"""Reading the waits the HTTP backend computed between attempts, from its DEBUG log."""

import re

import pytest


def waits_logged(caplog: pytest.LogCaptureFixture) -> list[float]:
    """The waits the backend computed before each retry (it logs them at DEBUG)."""
    found = (re.search(r"retrying in ([0-9.]+) s", r.getMessage()) for r in caplog.records)
    return [float(match.group(1)) for match in found if match]
