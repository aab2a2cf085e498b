"""The HTML report: the Markdown's sections and numbers on one page that loads and runs nothing.

Runs are real (scripted models, a real store); the page is read back with the stdlib HTML
parser, as a browser would build it, so "escaped" means no element or attribute was made.
"""

import re
from pathlib import Path

import pytest
from pydantic import JsonValue

import rulebench
from rulebench.core.items import ItemResult
from rulebench.engine.store.database import Store
from rulebench.inferential.settings import Grid
from rulebench.inferential.task import InferentialConfig
from rulebench.report.build import html_report, inferential_report, scenarios_report
from rulebench.report.html import render_html
from rulebench.report.plots import Curve, inline_svg, quantity_figure
from rulebench.report.redaction import is_secret_name, redact_config, redact_text
from rulebench.report.scenarios import scenarios_document
from rulebench.scenarios.scoring import CaseRecord

from tests.report.html_page import Page, markdown_table
from tests.stored_json import json_at, json_list

SCENARIOS: dict[str, JsonValue] = {"suites": ["basic"], "per_group": 1}
HOSTILE = (
    '<script>alert(1)</script> <img src=x onerror=alert(1)> " onmouseover="x '
    "[link](http://evil.example) \x1b[2J"
)
ESCAPED = HOSTILE.replace("\x1b", "\\x1b")  # how a control character is shown


def scenarios_run(store: Path, model: str, **args: str) -> str:
    report = rulebench.run("scenarios", model, config=SCENARIOS, store=store, model_args=args)
    return report.run.id


def assert_self_contained(html: str) -> Page:
    """Nothing runs and nothing loads: no script, no URL, links only to the page's own ids."""
    page = Page(html)
    assert "<script" not in html.lower()
    assert "http://" not in html and "https://" not in html
    assert page.attribute_values("src") == []
    assert not any(name.startswith("on") for _, attrs in page.elements for name in attrs)
    ids = page.attribute_values("id")
    assert len(ids) == len(set(ids)), "duplicate ids: a #link would find the wrong one"
    links = page.attribute_values("href")
    assert links and all(link.startswith("#") and link[1:] in ids for link in links)
    return page


def test_a_scenarios_comparison_shows_the_markdown_buckets_and_mcnemar_p(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    ids = [scenarios_run(store, "scripted/echo"), scenarios_run(store, "scripted/fixed")]
    with Store(store, readonly=True) as db:
        built = scenarios_report(db, ids)
        page = assert_self_contained(html_report(db, built))
    buckets = markdown_table(built.markdown, "Suites and buckets")
    assert [row[0] for row in buckets[1:]] == ["scripted/echo", "scripted/fixed"]
    assert all("[" in cell for row in buckets[1:] for cell in row[2:-1])  # rates, not "-"
    assert page.table_with(buckets[0]) == buckets
    paired = markdown_table(built.markdown, "Paired comparison")
    assert page.table_with(paired[0]) == paired
    [comparison] = json_list(built.numbers["comparisons"])
    assert paired[1][2] == "19" and paired[1][5] == f"{json_at(comparison, 'p_value'):.4f}"
    headings = [text for text in page.text if text in ("By behavior", "Run configurations")]
    assert headings.count("By behavior") == 2  # the contents list and the section


def test_an_inferential_page_has_its_tables_and_inline_charts_and_writes_no_file(
    tmp_path: Path,
) -> None:
    store = tmp_path / "s.sqlite"
    grid = Grid(quantities=("none", "golden", "few", "all"), forms=("nl", "fol"), cot=(False, True))
    config = InferentialConfig(tasks=("kinship",), per_group=4, grid=grid)
    run_id = rulebench.run("inferential", "scripted/echo", config=config, store=store).run.id
    with Store(store, readonly=True) as db:
        before = set(tmp_path.rglob("*"))
        built = inferential_report(db, [run_id], render=True)
        html = html_report(db, built)
        assert set(tmp_path.rglob("*")) == before  # the page needs no folder, no plot file
        on_disk = inferential_report(db, [run_id], folder=tmp_path / "md")
        total = db.count_results(run_id)["ok"]
    assert built.path is None and built.markdown == ""
    page = assert_self_contained(html)
    for heading in ("Rule form (Table 1 shape)", "Rule quantity", "Capability dimensions"):
        table = markdown_table(on_disk.markdown, heading)
        assert len(table) > 1 and page.table_with(table[0]) == table
    assert len(page.tags("svg")) == 2 and len(page.tags("figure")) == 2
    assert len(page.tags("path")) > 50  # the charts are drawn, not empty frames
    assert ".png" not in html and ".svg" not in html  # no link to the Markdown's plot files
    assert f"{run_id} (scripted/echo): {total} of {total} items shown" in page.text


def test_a_hostile_reply_is_text_in_the_items_and_makes_no_element(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    run_id = scenarios_run(store, "scripted/fixed", reply=HOSTILE)
    with Store(store, readonly=True) as db:
        html = html_report(db, scenarios_report(db, [run_id]), items_per_run=2)
    page = Page(html)
    assert page.tags("script") == [] and page.tags("img") == []
    assert not any("onerror" in attrs or "onmouseover" in attrs for _, attrs in page.elements)
    assert not [link for link in page.attribute_values("href") if not link.startswith("#")]
    assert page.text.count(ESCAPED) >= 2  # each shown item's reply, whole and literal
    assert "&lt;script&gt;alert(1)&lt;/script&gt; &lt;img src=x onerror=alert(1)&gt;" in html
    assert "&#34; onmouseover=&#34;x" in html and "\x1b" not in html


def test_hostile_labels_in_the_tables_stay_text() -> None:
    label = "m <script>x</script> [a](http://evil.example) | <b>"
    records = [
        CaseRecord(f"c{i}", "basic", "harmless", "<img src=x>", "b", None, 0, i % 2 == 0)
        for i in range(4)
    ]
    html = render_html(scenarios_document([(label, "user", records)]), [])
    page = Page(html)
    assert page.tags("script") == page.tags("img") == page.tags("b") == []
    assert [link for link in page.attribute_values("href") if not link.startswith("#")] == []
    [_, row] = page.table_with(["model", "protocol", "basic harmless", "headline"])
    assert row[0] == label


def test_secrets_in_a_stored_config_never_reach_the_page(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    plain = scenarios_run(store, "scripted/echo")
    with Store(store) as db:
        # A config as another writer or an older version might have stored it.
        config = db.get_run(plain).config | {
            "model_args": {"api_key": "sk-secret123", "timeout_s": "60", "max_tokens": "9"},
            "base_url": "https://u-7f3q:hunter2@llm.example/v1?token=tok-qs",
            "headers": ["Authorization: Bearer tok-abc"],
        }
        leaky = db.create_run("scenarios", "openai-api/vllm/m", config)
        writer = db.writer()
        for result in db.iter_results(plain):
            writer.put_result(leaky.id, result)
        writer.close()
        db.finish_run(leaky.id, "completed", {"endpoint": "http://bob:pw-77@10.0.0.1:8000"})
        html = html_report(db, scenarios_report(db, [leaky.id]))
    for secret in ("sk-secret123", "hunter2", "u-7f3q", "tok-qs", "tok-abc", "bob", "pw-77"):
        assert secret not in html, secret
    assert "https://***@llm.example/v1?token=***" in html and "Bearer ***" in html
    assert (
        "&#34;timeout_s&#34;: &#34;60&#34;" in html and "&#34;max_tokens&#34;: &#34;9&#34;" in html
    )


def test_redaction_hides_secret_names_and_credentials_but_not_settings() -> None:
    secret = ["api_key", "apiKey", "X-Api-Key", "OPENAI_API_KEY", "hf_token", "password", "auth"]
    settings = ["max_tokens", "prompt_tokens", "keyword", "monkey", "author", "seed"]
    assert [name for name in secret + settings if is_secret_name(name)] == secret
    assert redact_config({"api_key": None, "token_budget": 512, "auth": {"user": "u"}}) == {
        "api_key": None,
        "token_budget": 512,
        "auth": {"user": "***"},
    }
    assert redact_text("see http://u:p@h/x and https://h/y") == "see http://***@h/x and https://h/y"


def test_items_are_capped_per_run_and_the_page_says_how_many_are_left(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    run_id = scenarios_run(store, "scripted/echo")
    with Store(store, readonly=True) as db:
        first: list[ItemResult] = [next(iter(db.iter_results(run_id)))]
        html = html_report(db, scenarios_report(db, [run_id]), items_per_run=3)
    page = Page(html)
    assert len([a for a in page.tags("details") if a.get("class") == "item"]) == 3
    assert f"{run_id} (scripted/echo): 3 of 19 items shown" in page.text
    assert "16 more items of this run are not shown." in page.text
    assert first[0].item_id in page.text  # the first finished item leads
    assert re.search(r"<summary><code>\w+</code> (passed|failed)</summary>", html)


def test_inline_svg_keeps_the_drawing_and_drops_links_metadata_and_namespaces() -> None:
    figure = quantity_figure(
        [Curve("t", "a <b>", "NL", {"none": 0.5, "few": 0.75})], ("none", "few")
    )
    line = figure.axes[0].lines[0]
    line.set_url("http://evil.example/x")  # matplotlib wraps the line in <a xlink:href>
    line.set_gid("javascript:alert(1)")
    svg = inline_svg(figure, "chart")
    assert svg.startswith("<svg ") and "xmlns" not in svg and "<metadata" not in svg
    assert "evil.example" not in svg and "<a " not in svg and "http" not in svg
    page = Page(svg)
    ids = page.attribute_values("id")
    assert ids and all(ident.startswith("chart-") for ident in ids)
    targets = [href[1:] for href in page.attribute_values("href")]
    targets += re.findall(r"url\(#([^)]+)\)", svg)
    assert targets and set(targets) <= set(ids)
    curves = [Curve("t", "a", "NL", {"none": 0.5})]
    assert inline_svg(quantity_figure(curves, ("none",)), "x") == inline_svg(
        quantity_figure(curves, ("none",)), "x"
    )  # the same page on every build


@pytest.mark.parametrize("limit", [0, 1])
def test_no_items_or_one_item_still_makes_a_whole_page(tmp_path: Path, limit: int) -> None:
    store = tmp_path / "s.sqlite"
    run_id = scenarios_run(store, "scripted/echo")
    with Store(store, readonly=True) as db:
        html = html_report(db, scenarios_report(db, [run_id]), items_per_run=limit)
    page = assert_self_contained(html)
    assert f"{19 - limit} more items of this run are not shown." in page.text
