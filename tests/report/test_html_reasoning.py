"""The HTML report shows a reasoning model's thinking: tokens and cut replies per run, and each
reply's thinking collapsed above it in the items, as text."""

from pathlib import Path

from rulebench.core.messages import Usage
from rulebench.engine.store.database import Store
from rulebench.report.build import html_report, scenarios_report

from tests.report.html_page import Page, markdown_table
from tests.report.test_html_report import assert_self_contained, scenarios_run

# Markup in the thinking (no URL: the run's configuration, shown too, holds the model args).
THINKING = 'pondering the secret <script>alert(1)</script> <img src=x onerror=alert(1)> " x=\x1b'

THINKING_TOKENS = 5


def _thinking_copy(db: Store, run_id: str) -> tuple[str, int]:
    """The run again, its results counting thinking tokens and its first reply cut in thinking.

    Written by the store's writer, as a reasoning model's run stores them; (id, items).
    """
    source = db.get_run(run_id)
    copy = db.create_run(source.task, source.model, source.config)
    writer = db.writer()
    results = list(db.iter_results(run_id))
    for index, result in enumerate(results):
        usage = Usage(
            prompt_tokens=result.usage.prompt_tokens,
            completion_tokens=result.usage.completion_tokens + THINKING_TOKENS,
            reasoning_tokens=THINKING_TOKENS,
        )
        writer.put_result(
            copy.id,
            result.model_copy(update={"usage": usage, "is_reasoning_unfinished": index == 0}),
        )
    writer.close()
    db.finish_run(copy.id, "completed", {})
    return copy.id, len(results)


def test_the_page_shows_thinking_tokens_and_cut_replies_as_the_markdown_does(
    tmp_path: Path,
) -> None:
    store = tmp_path / "s.sqlite"
    thinker = scenarios_run(store, "scripted/fixed", reply="no", thinking=THINKING)
    with Store(store) as db:
        run_id, items = _thinking_copy(db, thinker)
        built = scenarios_report(db, [run_id])
        page = assert_self_contained(html_report(db, built))
    usage = markdown_table(built.markdown, "Tokens and cost")
    assert usage[0][3:5] == ["thinking out", "cut"]
    assert usage[1][3:5] == [f"{THINKING_TOKENS * items:,}", "1"]
    assert page.table_with(usage[0]) == usage  # the page has the Markdown's table
    text = " ".join(page.text)
    [line] = [w for w in built.warnings if "cut short" in w]
    assert "1 replies" in line and line.split(":")[0] in text


def test_each_reply_shows_its_thinking_collapsed_and_escaped(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    thinker = scenarios_run(store, "scripted/fixed", reply="no", thinking=THINKING)
    with Store(store) as db:
        run_id, _ = _thinking_copy(db, thinker)
        html = html_report(db, scenarios_report(db, [run_id]), items_per_run=3)
    page = assert_self_contained(html)
    thinking = [a for a in page.tags("details") if "reasoning" in str(a.get("class"))]
    assert len(thinking) >= 3 and all("open" not in a for a in thinking)
    assert "reasoning-unfinished" in str(thinking[0]["class"])  # the first item, cut short
    assert "cut short by the reply limit" in "".join(page.text)
    assert "pondering the secret <script>alert(1)</script>" in "".join(page.text)
    block = html.split('<div class="message reply">', 1)[1]
    assert block.index("pondering the secret") < block.index("<pre>no</pre>")  # above the answer


def test_a_report_without_thinking_keeps_its_table(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    run_id = scenarios_run(store, "scripted/echo")
    with Store(store, readonly=True) as db:
        built = scenarios_report(db, [run_id])
        page = Page(html_report(db, built))
    header = markdown_table(built.markdown, "Tokens and cost")[0]
    assert "thinking out" not in header and "cut" not in header
    assert not [a for a in page.tags("details") if "reasoning" in str(a.get("class"))]
