"""The options every report takes, and where its files go, come from `report_request`."""

from pathlib import Path

import pytest
from typer.testing import CliRunner

from rulebench.cli.app import app
from rulebench.cli.field_options import field_help
from rulebench.core.errors import ConfigError
from rulebench.report.kinds import DEFAULT_FOLDER, HTML_ITEMS
from rulebench.report.report_request import ReportRequest, report_destination


def test_without_output_only_an_inferential_markdown_report_gets_the_default_folder() -> None:
    assert report_destination("inferential", ReportRequest()) == (DEFAULT_FOLDER, None)
    assert report_destination("inferential", ReportRequest(as_json=True)) == (None, None)
    assert report_destination("scenarios", ReportRequest()) == (None, None)


def test_an_old_style_markdown_file_is_kept_for_scenarios_and_judge(tmp_path: Path) -> None:
    old = tmp_path / "r.md"
    assert report_destination("judge", ReportRequest(output=old)) == (None, old)
    # An inferential report's -o was always a folder, whatever its name.
    assert report_destination("inferential", ReportRequest(output=old)) == (old, None)


def test_output_naming_a_file_is_refused(tmp_path: Path) -> None:
    taken = tmp_path / "taken"
    taken.write_text("keep me", encoding="utf-8")
    with pytest.raises(ConfigError, match="a file is there; -o names the report's folder"):
        report_destination("scenarios", ReportRequest(output=taken))


def test_the_request_declares_the_defaults_and_help_the_command_shows(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert ReportRequest().html_items == HTML_ITEMS
    monkeypatch.setenv("COLUMNS", "2000")  # one line per option: the help reads whole
    shown = CliRunner().invoke(app, ["report", "scenarios", "--help"]).stdout
    for field in ("output", "store", "as_json", "html", "html_items"):
        assert field_help(ReportRequest, field) in shown
    assert f"[default: {HTML_ITEMS}]" in shown
