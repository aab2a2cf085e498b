"""The soak script: random SIGKILLs and resumes against a faulty server lose and repeat nothing."""

import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.subprocess  # spawns rulebench processes: not in `make test-fast`

SOAK = Path(__file__).parents[2] / "bench" / "soak_kill_resume.py"


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_soak_with_kills_and_faults_loses_duplicates_and_misattributes_nothing() -> None:
    result = subprocess.run(
        [sys.executable, str(SOAK), "-n", "1200", "--kills", "6", "--fault-rate", "0.35"],
        capture_output=True,
        text=True,
        timeout=280,
        check=False,
    )
    figures = dict(
        (name.strip(), value.strip())
        for name, _, value in (line.partition(":") for line in result.stdout.splitlines())
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert int(figures["killed"]) >= 1  # the kills landed mid-run
    assert int(figures["faults injected"]) > 100
    for name in ("lost", "duplicated", "misattributed", "re-requested after finishing"):
        assert figures[name] == "0", name
    assert figures["stored results"] == "1200" and figures["final status"] == "completed"
