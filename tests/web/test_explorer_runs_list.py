"""The runs list: the report's headline score, counts, tokens, cost, labels, sort and filter;
and the compare page's configuration diff."""

from collections.abc import ItemsView, Iterator
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
from pydantic import JsonValue

import rulebench
from rulebench.engine.store.database import Store
from rulebench.engine.store.records import RunRecord
from rulebench.report.build import inferential_report, scenarios_report
from rulebench.report.tables import format_usd
from rulebench.report.usage import load_prices
from rulebench.web.explorer import config_diff

from tests.report.html_page import Page
from tests.stored_json import json_at, json_object
from tests.web.explorer_store import explorer, synthetic_run

HEADER = ["id", "run", "task", "score", "n", "errors", "tokens", "cost", "started", "status"]
BOTH_SUITES: dict[str, JsonValue] = {"suites": ["basic", "redteam"], "per_group": 1}
KINSHIP: dict[str, JsonValue] = {"tasks": ["kinship"], "per_group": 12}


def rows(html: str) -> list[dict[str, str]]:
    table = Page(html).table_with(HEADER)
    return [dict(zip(HEADER, row, strict=True)) for row in table[1:]]


def by_id(html: str) -> dict[str, dict[str, str]]:
    return {row["id"]: row for row in rows(html)}


def scenarios(store: Path, reply: str) -> str:
    report = rulebench.run(
        "scenarios", "scripted/fixed", config=BOTH_SUITES, store=store, model_args={"reply": reply}
    )
    return report.run.id


def test_scores_are_the_reports_headlines(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    refusing = scenarios(store, "I cannot help with that.")
    echoing = rulebench.run("scenarios", "scripted/echo", config=BOTH_SUITES, store=store).run.id
    inferential = rulebench.run("inferential", "scripted/echo", config=KINSHIP, store=store).run.id
    with Store(store, readonly=True) as db:
        scenario_numbers = scenarios_report(db, [refusing, echoing]).numbers["runs"]
        inferential_numbers = inferential_report(db, [inferential]).numbers["runs"]
    expected = {
        refusing: json_at(scenario_numbers, 0, "headline"),
        echoing: json_at(scenario_numbers, 1, "headline"),
        inferential: json_at(inferential_numbers, 0, "overall"),
    }
    with explorer(store) as client:
        shown = by_id(client.get("/").text)
    for run_id, headline in expected.items():
        value = json_at(headline, "value")
        assert isinstance(value, float | int)
        assert shown[run_id]["score"] == f"{100 * value:.1f}"
        assert shown[run_id]["n"] == str(json_at(headline, "n"))
    assert len({shown[run_id]["score"] for run_id in (refusing, echoing)}) == 2


def test_counts_tokens_and_cost_are_the_reports_at_the_users_prices(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = tmp_path / "s.sqlite"
    run_id = rulebench.run("scenarios", "scripted/echo", config=BOTH_SUITES, store=store).run.id
    errors = synthetic_run(store, 14)  # items 6 and 13 are errors
    with Store(store) as db:
        other = db.create_run("judge", "openai/unpriced", {})
        db.finish_run(other.id, "completed", {})
    prices = tmp_path / "prices.toml"
    prices.write_text('["scripted/*"]\ninput = 1000000\noutput = 2000000\n', encoding="utf-8")
    with explorer(store) as client:
        plain = by_id(client.get("/").text)
        monkeypatch.setenv("RULEBENCH_PRICES", str(prices))
        priced = by_id(client.get("/").text)
    with Store(store, readonly=True) as db:
        numbers = scenarios_report(db, [run_id], prices=load_prices(prices)).numbers["runs"]
    usage = json_object(json_at(numbers, 0, "usage"))
    cost = usage["cost_usd"]
    assert isinstance(usage["prompt_tokens"], int) and usage["prompt_tokens"] > 0
    assert isinstance(usage["completion_tokens"], int) and usage["completion_tokens"] > 0
    assert isinstance(cost, float)
    assert plain[errors]["errors"] == "2" and plain[run_id]["cost"] == "-"
    tokens = f"{usage['prompt_tokens']:,} / {usage['completion_tokens']:,}"
    assert plain[run_id]["tokens"] == priced[run_id]["tokens"] == tokens
    assert priced[run_id]["cost"] == format_usd(cost)
    assert priced[other.id]["cost"] == "-" and priced[other.id]["score"] == "-"


def test_sorting_by_n_uses_the_headlines_n_the_column_shows(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    # 20 results of 4 samples, against more samples with fewer results
    repeated: dict[str, JsonValue] = {"tasks": ["kinship"], "per_group": 4, "repeats": 5}
    few_results = rulebench.run("inferential", "scripted/echo", config=repeated, store=store)
    many_samples = rulebench.run("inferential", "scripted/echo", config=KINSHIP, store=store)
    with explorer(store) as client:
        listed = rows(client.get("/", params={"sort": "n"}).text)
    assert [row["id"] for row in listed] == [many_samples.run.id, few_results.run.id]
    assert [int(row["n"]) for row in listed] == sorted(
        (int(row["n"]) for row in listed), reverse=True
    )


def test_labels_tell_apart_runs_that_differ_only_in_settings(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    first = scenarios(store, "no")
    second = scenarios(store, "yes")
    with explorer(store) as client:
        shown = by_id(client.get("/").text)
    assert shown[first]["run"] != shown[second]["run"]
    assert 'model_args.reply="no"' in shown[first]["run"]
    assert 'model_args.reply="yes"' in shown[second]["run"]
    assert "prompts: rulebench" in shown[first]["run"]


def test_sorting_by_score_orders_every_run_not_just_a_page(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    ids = [
        scenarios(store, "I cannot help with that."),
        rulebench.run("scenarios", "scripted/echo", config=BOTH_SUITES, store=store).run.id,
        rulebench.run("inferential", "scripted/echo", config=KINSHIP, store=store).run.id,
    ]
    with explorer(store) as client:
        descending = [rows(client.get("/", params={"sort": "score", "size": 1, "page": page}).text)
                      for page in (1, 2, 3)]  # fmt: skip
        everything = rows(client.get("/", params={"sort": "score"}).text)
        ascending = rows(client.get("/", params={"sort": "score", "order": "asc"}).text)
        newest = rows(client.get("/").text)
    scores = [float(row["score"]) for row in everything]
    assert scores == sorted(scores, reverse=True) and len(set(scores)) == 3
    assert [page[0]["id"] for page in descending] == [row["id"] for row in everything]
    assert [row["id"] for row in ascending] == [row["id"] for row in everything][::-1]
    assert [row["id"] for row in newest] == ids[::-1]


def test_the_score_header_flips_the_order_and_keeps_the_filters(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    synthetic_run(store, 3)
    with explorer(store) as client:
        page = Page(client.get("/", params={"sort": "score", "task": "scenarios"}).text)
    [score_header] = [th for th in page.tags("th") if th.get("aria-sort")]
    assert score_header["aria-sort"] == "descending"
    [link] = [a["href"] for a in page.tags("a") if a.get("data-sort") == "score"]
    query = parse_qs(urlsplit(str(link)).query)
    assert query == {"sort": ["score"], "order": ["asc"], "task": ["scenarios"]}


def test_text_filter_matches_ids_models_and_settings(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    first = scenarios(store, "walrus")
    second = synthetic_run(store, 3, model="scripted/heron")
    with explorer(store) as client:
        by_setting = by_id(client.get("/", params={"q": "walrus"}).text)
        by_model = by_id(client.get("/", params={"q": "HERON"}).text)
        none = client.get("/", params={"q": "nothing-has-this"}).text
    assert list(by_setting) == [first] and list(by_model) == [second]
    assert "No runs match" in none


def test_a_run_the_report_cannot_read_shows_no_score_and_says_why(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    run_id = synthetic_run(store, 3)  # scenarios-like items without a case id
    with explorer(store) as client:
        page = client.get("/", params={"sort": "score"})
    assert page.status_code == 200
    assert by_id(page.text)[run_id]["score"] == "-"
    titles = Page(page.text).attribute_values("title")
    assert any("no headline score" in title and "case_id" in title for title in titles)


def test_compare_diffs_the_configurations_with_secrets_hidden(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    with Store(store) as db:
        first = db.create_run("t", "m", {"generate": {"temperature": 0.0}, "api_key": "sk-1"})
        second = db.create_run(
            "t", "m", {"generate": {"temperature": 0.7}, "api_key": "sk-2", "extra": 1}
        )
    with explorer(store) as client:
        page = client.get("/compare", params={"a": first.id, "b": second.id})
    table = Page(page.text).table_with(["setting", "", "first", "second"])
    found = {row[0]: row[1:] for row in table[1:]}
    assert found["generate.temperature"] == ["≠", "0.0", "0.7"]
    assert found["extra"] == ["≠", "(not set)", "1"]
    assert found["api_key"][0] == "" and "sk-" not in page.text
    assert "2 of 3 settings differ" in page.text


class CountedConfig(dict[str, str]):
    """A flat config that counts how often a label's code reads it (reads, walks)."""

    reads = 0

    def get(self, key: str, default: object = None) -> object:  # type: ignore[override]
        CountedConfig.reads += 1
        return super().get(key, default)

    def __getitem__(self, key: str) -> str:
        CountedConfig.reads += 1
        return super().__getitem__(key)

    def __iter__(self) -> Iterator[str]:
        CountedConfig.reads += 1
        return super().__iter__()

    def items(self) -> ItemsView[str, str]:  # type: ignore[override]
        CountedConfig.reads += 1
        return super().items()


def test_labels_read_each_runs_settings_a_bounded_number_of_times(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Labels for N runs read N configs a few times each, never N x N (10,000 runs listed)."""
    flat = config_diff.flat_config
    monkeypatch.setattr(config_diff, "flat_config", lambda config: CountedConfig(flat(config)))
    runs = [
        RunRecord(
            id=f"run-{index}",
            task="judge" if index % 2 else "loadtest",
            model="scripted/echo",
            config={"seed": index // 2, "size": 3, "generate": {"temperature": 0.5}},
            version="0",
            started_at="2020-01-01T00:00:00+00:00",
            ended_at=None,
            status="completed",
            pid=None,
            notes={},
        )
        for index in range(400)
    ]
    CountedConfig.reads = 0
    labels = config_diff.run_labels(runs)
    assert labels["run-0"] == "scripted/echo · seed=0"
    assert labels["run-399"].startswith("scripted/echo · seed=199")  # then the prompts
    assert CountedConfig.reads <= 4 * len(runs) * 3  # a few reads per run and setting
