"""`rulebench runs show RUN --item ID` prints one item: each reply's thinking above its answer."""

import json
from pathlib import Path

from pydantic import JsonValue
from typer.testing import CliRunner

import rulebench
from rulebench.cli.app import app
from rulebench.core.errors import ConfigError
from rulebench.engine.store.database import Store

runner = CliRunner()
THINKING = "mulling over the key \x1b[2J [bold]quietly[/bold]"


def _run(store: Path) -> tuple[str, str]:
    """A scenarios run of a thinking scripted model: its id and its first item's id."""
    config: dict[str, JsonValue] = {
        "suites": ["basic"],
        "per_group": 1,
        "scenarios": ["Encryption"],
    }
    report = rulebench.run(
        "scenarios",
        "scripted/fixed",
        config=config,
        store=store,
        model_args={"reply": "no way", "thinking": THINKING},
    )
    with Store(store, readonly=True) as db:
        first = next(iter(db.iter_results(report.run.id)))
    return report.run.id, first.item_id


def _show(store: Path, *args: str) -> str:
    result = runner.invoke(app, ["runs", "show", *args, "--store", str(store)])
    assert result.exit_code == 0, result.output
    return result.stdout


def test_an_item_shows_its_thinking_above_its_answer_and_its_verdict(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    run_id, item_id = _run(store)
    shown = _show(store, run_id, "--item", item_id)
    thinking = shown.index("thinking:")
    assert thinking < shown.index("mulling over the key") < shown.index("answer:")
    assert shown.index("answer:") < shown.index("no way") < shown.index("verdict:")
    assert "[bold]quietly[/bold]" in shown and "\x1b[2J" not in shown  # text, not markup
    as_json = json.loads(_show(store, run_id, "--item", item_id, "--json"))
    assert as_json["reasoning"] == THINKING and as_json["reply"] == "no way"
    assert [m.get("reasoning") for m in as_json["messages"] if m["role"] == "assistant"][-1] == (
        THINKING
    )


def test_a_cut_thinking_is_labelled(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    run_id, item_id = _run(store)
    with Store(store) as db:  # the same item again, its thinking cut by the reply limit
        result = db.browser().result(run_id, item_id)
        assert result is not None
        cut = db.create_run("scenarios", "scripted/fixed", {})
        writer = db.writer()
        writer.put_result(cut.id, result.model_copy(update={"is_reasoning_unfinished": True}))
        writer.close()
    shown = " ".join(_show(store, cut.id, "--item", item_id).split())
    assert "thinking (unfinished: cut short by the reply limit, so no answer):" in shown


def test_an_unknown_item_is_one_clear_error(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    run_id, _ = _run(store)
    result = runner.invoke(app, ["runs", "show", run_id, "--item", "nope", "--store", str(store)])
    assert result.exit_code == 1 and isinstance(result.exception, ConfigError), result.output
    assert str(result.exception) == f"run {run_id} has no result for item 'nope'"
