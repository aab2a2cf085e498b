"""The CLI's consoles follow COLUMNS at print time, so tests (and terminals) set the width there."""

import pytest

from rulebench.cli import console


@pytest.mark.parametrize("width", [80, 123])
def test_consoles_take_their_width_from_columns(
    width: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A width fixed on the shared console object (e.g. by patching its `width` property, whose
    # undo writes the old value back as a fixed width) would leak into every later test.
    monkeypatch.setenv("COLUMNS", str(width))
    assert console.out.width == width
    assert console.err.width == width
