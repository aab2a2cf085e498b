"""Token totals and costs in `runs show`, a run's closing summary and the reports.

Runs are real (scripted models, a real store); the prices are the user's, from flags, a file
or $RULEBENCH_PRICES.
"""

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from rulebench.cli.app import app
from rulebench.engine.store.database import Store
from rulebench.engine.summary import summarize

runner = CliRunner()


def invoke(*args: str, code: int = 0, env: dict[str, str] | None = None) -> Result:
    result = runner.invoke(app, list(args), env=env)
    assert result.exit_code == code, (result.output, result.exception)
    return result


@pytest.fixture
def scenarios_run(tmp_path: Path) -> tuple[str, str]:
    store = str(tmp_path / "s.sqlite")
    invoke(
        "run", "scenarios", "-s", "basic", "--per-group", "1", "-m", "scripted/echo",
        "--store", store,
    )  # fmt: skip
    with Store(store, readonly=True) as db:
        return store, db.list_runs(1)[0].id


def tokens(store: str, run_id: str) -> tuple[int, int]:
    with Store(store, readonly=True) as db:
        [total] = summarize(db.tally_results(run_id), grouped=False)
    assert total.prompt_tokens > 0 and total.completion_tokens > 0
    return total.prompt_tokens, total.completion_tokens


def test_runs_show_prices_the_run_from_flags(scenarios_run: tuple[str, str]) -> None:
    store, run_id = scenarios_run
    prompt, completion = tokens(store, run_id)
    args = ("runs", "show", run_id, "--store", store, "--price-in", "2", "--price-out", "10")
    payload = json.loads(invoke(*args, "--json").stdout)
    overall = payload["summary"][-1]
    assert overall["cost_usd"] == pytest.approx((prompt * 2 + completion * 10) / 1e6)
    assert payload["prices"]["input"] == 2 and payload["prices"]["output"] == 10
    shown = invoke(*args).output
    assert "cost" in shown and "per million input / output tokens" in shown


def test_runs_show_without_prices_shows_tokens_but_no_cost(
    scenarios_run: tuple[str, str],
) -> None:
    store, run_id = scenarios_run
    payload = json.loads(invoke("runs", "show", run_id, "--store", store, "--json").stdout)
    assert payload["summary"][-1]["cost_usd"] is None and payload["prices"] is None
    assert "USD" not in invoke("runs", "show", run_id, "--store", store).output


def test_a_price_file_without_the_model_says_so(
    scenarios_run: tuple[str, str], tmp_path: Path
) -> None:
    store, run_id = scenarios_run
    prices = tmp_path / "prices.toml"
    prices.write_text('["openai/*"]\ninput = 1\noutput = 1\n')
    shown = invoke("runs", "show", run_id, "--store", store, "--prices", str(prices)).output
    assert "no price for scripted/echo" in shown


def test_half_a_price_is_refused(scenarios_run: tuple[str, str]) -> None:
    store, run_id = scenarios_run
    result = invoke("runs", "show", run_id, "--store", store, "--price-in", "1", code=1)
    assert "--price-in and --price-out go together" in str(result.exception)


def test_the_closing_summary_prices_from_the_environment(tmp_path: Path) -> None:
    prices = tmp_path / "prices.toml"
    prices.write_text('["scripted/*"]\ninput = 1000\noutput = 1000\n')
    store = str(tmp_path / "s.sqlite")
    env = {"RULEBENCH_PRICES": str(prices)}
    result = invoke("run", "smoke", "-m", "scripted/echo", "--store", store, "--json", env=env)
    payload = json.loads(result.stdout)
    overall = payload["summary"][-1]
    expected = (overall["prompt_tokens"] + overall["completion_tokens"]) * 1000 / 1e6
    assert overall["cost_usd"] == pytest.approx(expected) and expected > 0


def test_a_bad_environment_table_warns_after_the_run_and_keeps_it(tmp_path: Path) -> None:
    prices = tmp_path / "prices.toml"
    prices.write_text("not toml [")
    store = str(tmp_path / "s.sqlite")
    env = {"RULEBENCH_PRICES": str(prices)}
    result = invoke("run", "smoke", "-m", "scripted/echo", "--store", store, env=env)
    assert "costs not shown" in result.output
    with Store(store, readonly=True) as db:
        assert db.list_runs(1)[0].status == "completed"


def test_reports_carry_tokens_and_cost(scenarios_run: tuple[str, str], tmp_path: Path) -> None:
    store, run_id = scenarios_run
    prompt, completion = tokens(store, run_id)
    args = ("report", "scenarios", run_id, "--store", store, "--price-in", "1", "--price-out", "3")
    payload = json.loads(invoke(*args, "--json").stdout)
    usage = payload["runs"][0]["usage"]
    assert (usage["prompt_tokens"], usage["completion_tokens"]) == (prompt, completion)
    assert usage["cost_usd"] == pytest.approx((prompt + 3 * completion) / 1e6)
    invoke(*args, "-o", str(tmp_path))
    markdown = (tmp_path / "report.md").read_text()
    assert "## Tokens and cost" in markdown and f"| {prompt:,} |" in markdown
