"""The export format follows --format and the file's suffix; an inspect log names itself."""

from pathlib import Path

import pytest

from rulebench.core.errors import ConfigError
from rulebench.engine.export.export_options import (
    INSPECT_LOG_DIR,
    default_inspect_path,
    export_format,
)
from rulebench.engine.export.run_export import ExportFormat


@pytest.mark.parametrize(
    ("output", "fmt", "chosen"),
    [
        ("r.JSONL", None, "jsonl"),
        ("r.csv", None, "csv"),
        ("r.txt", "csv", "csv"),
        ("r.eval", None, "inspect"),
        ("r.json", "inspect", "inspect"),
        (None, "inspect", "inspect"),
    ],
)
def test_the_suffix_or_the_format_decides(
    output: str | None, fmt: ExportFormat | None, chosen: str
) -> None:
    assert export_format(None if output is None else Path(output), fmt) == chosen


@pytest.mark.parametrize(
    ("output", "fmt", "message"),
    [
        (None, None, "--output is required for JSONL and CSV exports"),
        ("r.parquet", None, "cannot write .parquet"),
        ("r.json", None, "for an inspect log add --format inspect"),
        ("r", None, "cannot write a file without a suffix"),
        ("r.csv", "jsonl", "names a .csv file but --format is jsonl"),
        ("r.txt", "inspect", "an inspect log is a .eval or .json file"),
    ],
)
def test_a_name_that_is_not_the_format_is_refused(
    output: str | None, fmt: ExportFormat | None, message: str
) -> None:
    with pytest.raises(ConfigError, match=message):
        export_format(None if output is None else Path(output), fmt)


def test_the_default_inspect_log_goes_to_logs_made_here(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert default_inspect_path("x.eval") == INSPECT_LOG_DIR / "x.eval"
    assert (tmp_path / "logs").is_dir()
