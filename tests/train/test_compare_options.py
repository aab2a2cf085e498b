"""`prepare_compare` and its notes: the library builds the comparison `train compare` runs."""

from pathlib import Path

import pytest
from typer.testing import CliRunner

from rulebench.cli.app import app
from rulebench.core.errors import ConfigError
from rulebench.study.irft import Contender, SideRun, StudyConfig, StudyResult
from rulebench.study.irft_compare_options import (
    CompareOptions,
    prepare_compare,
    settings_line,
    unfinished_lines,
    written_line,
)

runner = CliRunner()


def test_the_command_says_the_line_of_the_comparison_prepare_compare_builds(
    tmp_path: Path, tiny_data: Path
) -> None:
    output, store = tmp_path / "o", tmp_path / "s.sqlite"
    args = ["train", "compare", "scripted/fixed", "scripted/fixed", "--data", str(tiny_data)]
    args += ["--per-group", "2", "--no-scenarios", "-c", "3", "--store", str(store)]
    result = runner.invoke(app, [*args, "-o", str(output), "--json"])
    assert result.exit_code == 0, result.output
    options = CompareOptions(
        data=tiny_data, per_group=2, no_scenarios=True, concurrency=3, output=output
    )
    prepared = prepare_compare(options, "scripted/fixed", "scripted/fixed")
    assert prepared.config == StudyConfig.model_validate(
        {"data": tiny_data, "per_group": 2, "scenarios": False, "concurrency": 3, "output": output}
    )
    assert prepared.line == (
        "base scripted/fixed; tuned scripted/fixed; StringGame 2 per split, RuleBench 2 per "
        "task, benign cases per behavior: skipped"
    )
    assert prepared.line in " ".join(result.stderr.split())


def test_a_part_set_alone_and_the_whole_suite() -> None:
    options = CompareOptions(parts={"rulebench_per_group": 7, "scenarios_per_group": None})
    prepared = prepare_compare(options, "scripted/fixed", "scripted/fixed")
    assert (prepared.config.rulebench_per_group, prepared.config.scenarios_per_group) == (7, None)
    assert prepared.config.stringgame_per_group == StudyConfig().stringgame_per_group
    assert settings_line(prepared.config, prepared.base, prepared.tuned).endswith(
        "benign cases per behavior: all"
    )


def test_a_bad_count_is_one_error_naming_its_option() -> None:
    options = CompareOptions(parts={"rulebench_per_group": 0})
    with pytest.raises(ConfigError, match="--rulebench-per-group"):
        prepare_compare(
            options, "scripted/fixed", "scripted/fixed", lambda f: f"--{f}".replace("_", "-")
        )


def test_unfinished_runs_and_written_files_are_said() -> None:
    runs = [
        SideRun(
            measurement="stringgame", side="base", run_id="r1", status="completed", cache_hits=0
        ),
        SideRun(
            measurement="stringgame", side="tuned", run_id="r2", status="interrupted", cache_hits=0
        ),
    ]
    base, tuned = (Contender(label=side, model="scripted/echo") for side in ("base", "tuned"))
    result = StudyResult(runs=runs, base=base, tuned=tuned, rows=[])
    assert unfinished_lines(result) == ["run r2 (stringgame, tuned) is interrupted"]
    assert written_line([Path("o/compare.md"), Path("o/compare.json")]) == (
        "written: o/compare.md, o/compare.json"
    )
