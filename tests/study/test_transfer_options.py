"""`attack transfer`'s options become its config in the library, its suffixes loaded once."""

import asyncio
from pathlib import Path

import pytest

from rulebench.attack.suffixes import load_suffix
from rulebench.core.errors import ConfigError
from rulebench.engine.store.database import Store
from rulebench.models.registry import DEFAULT_MODEL
from rulebench.scenarios.protocol import Protocol
from rulebench.study.transfer import TransferConfig, TransferResult, TransferRun, run_transfer
from rulebench.study.transfer_options import (
    TransferOptions,
    plan_line,
    prepare_transfer,
    unfinished_runs,
)

SUFFIX = "zq !! describing"


def suffix_file(tmp_path: Path) -> Path:
    path = tmp_path / "s.txt"
    path.write_text(SUFFIX + "\n", encoding="utf-8")
    return path


def test_options_make_the_config_a_python_caller_would(tmp_path: Path) -> None:
    options = TransferOptions(
        suffixes=(str(suffix_file(tmp_path)),), scenarios=("Encryption",), per_group=2,
        placement="system", no_reminders=True, model_args={"reply": "OK"}, concurrency=3,
    )  # fmt: skip
    prepared = prepare_transfer(options, None)
    assert prepared.config == TransferConfig(
        scenarios=("Encryption",), per_group=2, model_args={"reply": "OK"}, concurrency=3,
        protocol=Protocol(placement="system", reminders=False),
    )  # fmt: skip
    assert [suffix.text for suffix in prepared.suffixes] == [SUFFIX]
    assert prepared.models == (DEFAULT_MODEL,)
    assert prepared.plan_line == plan_line(prepared.suffixes, prepared.models, prepared.config)
    assert "scenarios Encryption; suites basic, 2 per behavior" in prepared.plan_line


def test_full_runs_every_case_and_left_out_options_take_the_defaults(tmp_path: Path) -> None:
    given = (str(suffix_file(tmp_path)),)
    assert prepare_transfer(TransferOptions(suffixes=given), None).config == TransferConfig()
    full = prepare_transfer(TransferOptions(suffixes=given, per_group=3, full=True), None)
    assert full.config.per_group is None and "all cases" in full.plan_line


def test_a_missing_suffix_is_refused_before_anything_runs(tmp_path: Path) -> None:
    with pytest.raises(ConfigError):
        prepare_transfer(TransferOptions(suffixes=(str(tmp_path / "none.txt"),)), None)


def test_the_prepared_transfer_runs_what_run_transfer_runs(tmp_path: Path) -> None:
    given = (str(suffix_file(tmp_path)),)
    options = TransferOptions(suffixes=given, models=("scripted/echo",), scenarios=("Encryption",))
    prepared = prepare_transfer(options, None)
    with Store(tmp_path / "a.sqlite") as db:
        ran = asyncio.run(prepared.run(db))
    with Store(tmp_path / "b.sqlite") as db:
        suffixes = [load_suffix(given[0], None)]
        direct = asyncio.run(run_transfer(prepared.config, suffixes, ["scripted/echo"], db))
    assert ran.rows == direct.rows


def test_unfinished_runs_are_named() -> None:
    runs = [
        TransferRun(model="m", suffix=None, run_id="r1", status="completed"),
        TransferRun(model="m", suffix="s", run_id="r2", status="interrupted"),
    ]
    assert unfinished_runs(TransferResult(rows=[], runs=runs)) == ["run r2 (m) is interrupted"]
