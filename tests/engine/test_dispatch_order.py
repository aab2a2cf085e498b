"""Grouped dispatch: items sharing a beginning go out together; ids, prompts and results stay."""

import random
from collections.abc import Sequence
from pathlib import Path

from pydantic import JsonValue

import rulebench
from rulebench.core.items import Item, ItemIds, Outcome
from rulebench.core.messages import Completion, GenerateConfig, Message
from rulebench.engine.dispatch_order import DispatchOrder, grouped_by_prefix
from rulebench.engine.run_lookup import run_identity
from rulebench.engine.runner import Runner, RunSpec
from rulebench.engine.store.database import Store
from rulebench.engine.task import Session
from rulebench.models.scripted import ScriptedModel

DEMOS = {cell: f"Instructions of {cell}. " + f"Demonstration of {cell}. " * 20 for cell in "abc"}


class CellTask:
    """Items of three cells, each cell's prompts opening with its own demonstrations, shuffled."""

    name = "cells-test"

    def __init__(self, per_cell: int = 5) -> None:
        ids = ItemIds()
        items = [
            Item(
                id=ids([cell, i]),
                messages=(Message(role="user", content=f"{DEMOS[cell]}Question {i}?"),),
                metadata={"cell": cell},
            )
            for cell in DEMOS
            for i in range(per_cell)
        ]
        self._items = random.Random(3).sample(items, len(items))

    def config(self) -> dict[str, JsonValue]:
        return {}

    def items(self) -> list[Item]:
        return self._items

    async def solve(self, item: Item, session: Session) -> Outcome:
        completion = await session.generate(item.messages)
        return Outcome(answer=completion.text, score=1.0)


class Recording(ScriptedModel):
    """The echo model, keeping every prompt in the order it was sent."""

    def __init__(self) -> None:
        super().__init__("echo")
        self.sent: list[str] = []

    async def generate(self, messages: Sequence[Message], config: GenerateConfig) -> Completion:
        self.sent.append(messages[-1].content)
        return await super().generate(messages, config)


def cells(items: Sequence[Item]) -> list[str]:
    return [str(item.metadata["cell"]) for item in items]


def test_grouping_keeps_the_items_and_puts_each_cell_together() -> None:
    items = CellTask().items()
    grouped = list(grouped_by_prefix(items))
    assert sorted(grouped, key=lambda i: i.id) == sorted(items, key=lambda i: i.id)
    assert cells(grouped) == sorted(cells(items))
    assert list(grouped_by_prefix(reversed(items))) == grouped  # the order given changes nothing


def test_grouping_sorts_within_windows_only() -> None:
    items = CellTask(per_cell=4).items()
    grouped = list(grouped_by_prefix(items, window=6))
    assert grouped[:6] == sorted(items[:6], key=lambda i: i.messages[0].content)
    assert sorted(i.id for i in grouped[6:]) == sorted(i.id for i in items[6:])


def test_ties_keep_the_given_order() -> None:
    same = (Message(role="user", content="same"),)
    items = [Item(id=f"id{i}", messages=same, repeat=i) for i in (2, 0, 1)]
    assert [i.id for i in grouped_by_prefix(items)] == ["id2", "id0", "id1"]


Row = tuple[tuple[Message, ...], str | None, Outcome | None, int]


async def run(store: Store, order: DispatchOrder) -> tuple[list[str], list[str], dict[str, Row]]:
    model = Recording()
    spec = RunSpec(task="cells-test", model="scripted/echo", concurrency=1, use_cache=False)
    report = await Runner(store, order=order).run(CellTask(), model, spec)
    results = list(store.iter_results(report.run.id))
    rows = {r.item_id: (r.messages, r.reply, r.outcome, r.calls) for r in results}
    return model.sent, [r.item_id for r in results], rows


async def test_a_grouped_run_sends_each_cell_together_and_stores_the_same_rows(
    store: Store,
) -> None:
    sent_given, _, given = await run(store, "given")
    sent, stored_order, grouped = await run(store, "grouped")
    assert sorted(sent) == sorted(sent_given)  # the same prompts, to the byte
    openings = [prompt.split(".")[0] for prompt in sent]
    assert openings == sorted(openings)  # a cell's items one after the other
    assert [prompt.split(".")[0] for prompt in sent_given] != openings  # the task's: shuffled
    assert grouped == given  # each item id holds what it held
    again, stored_again, _ = await run(store, "grouped")
    assert (again, stored_again) == (sent, stored_order)  # reproducible, run after run


async def test_the_specs_order_is_the_runs_and_a_resume_keeps_it(store: Store) -> None:
    model = Recording()
    spec = RunSpec(task="cells-test", model="scripted/echo", concurrency=1, use_cache=False)
    report = await Runner(store).run(
        CellTask(), model, spec.model_copy(update={"order": "grouped"})
    )
    openings = [prompt.split(".")[0] for prompt in model.sent]
    assert openings == sorted(openings)
    assert store.get_run(report.run.id).config["order"] == "grouped"
    stored = RunSpec.model_validate(store.get_run(report.run.id).config)
    assert run_identity(stored.model_dump(mode="json")) == run_identity(
        spec.model_dump(mode="json")
    )


def test_the_command_line_and_the_api_take_the_order(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from rulebench.cli.app import app

    store = tmp_path / "s.sqlite"
    command = ["run", "smoke", "-m", "scripted/echo", "--order", "grouped", "--store", str(store)]
    result = CliRunner().invoke(app, command)
    assert result.exit_code == 0, result.output
    refused = CliRunner().invoke(app, [*command[:4], "--order", "random", "--store", str(store)])
    assert refused.exit_code == 2 and "random" in refused.output
    with Store(store) as db:
        (run,) = db.list_runs()
    assert run.config["order"] == "grouped"
    report = rulebench.run("smoke", "scripted/echo", store=store, order="grouped", use_cache=False)
    assert report.run.config["order"] == "grouped"
