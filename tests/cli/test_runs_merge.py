"""`rulebench runs merge` and what `runs show` says of a run joined from shards."""

from pathlib import Path

from typer.testing import CliRunner

from rulebench.cli.app import app
from rulebench.core.errors import StoreError


def invoke(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, list(args))
    if result.exception and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.exit_code, result.stdout, result.stderr


def test_show_names_the_missing_shard_and_how_to_run_it(tmp_path: Path) -> None:
    stores = [str(tmp_path / f"s{index}.sqlite") for index in (1, 2, 3)]
    for index, store in enumerate(stores[:2], 1):
        code, _, _ = invoke(
            "run", "smoke", "-m", "scripted/echo", "--store", store, "--shard", f"{index}/3"
        )
        assert code == 0
    target = str(tmp_path / "t.sqlite")
    code, merged, _ = invoke("runs", "merge", *stores[:2], "--into", target)
    assert code == 0 and "sharded run sharded-" in merged
    code, shown, said = invoke("runs", "show", "sharded-", "--store", target)
    assert "status: partial" in shown
    assert "why partial: not merged yet: shard 3/3" in said
    assert "--shard 3/3" in said and "rulebench runs merge" in said
    try:
        invoke("run", "--resume", "sharded-", "--store", target)
    except StoreError as exc:
        assert "joined from shards" in str(exc)
    else:
        raise AssertionError("a run joined from shards was resumed in the target")
