"""The command line a stopped command offers to run again shows no secret of its URLs."""

import sys

import pytest

from rulebench.cli.interrupts import same_command


def test_same_command_hides_url_secrets_in_both_option_forms(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    argv = ["rulebench", "run", "smoke", "--base-url", "http://u:pw-1@h/v1?api_key=sk-one"]
    argv.append("--base-url=http://v:pw-2@g/v1?api_key=sk-two")
    monkeypatch.setattr(sys, "argv", argv)
    line = same_command("--resume")
    assert "pw-" not in line and "sk-" not in line, line
    assert line == (
        "rulebench run smoke --base-url 'http://***@h/v1?api_key=***' "
        "'--base-url=http://***@g/v1?api_key=***' --resume"
    )
