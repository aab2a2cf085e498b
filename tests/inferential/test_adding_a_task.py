"""CONTRIBUTING.md's "Adding a task" example, taken from that file and run as written.

The module of step 1 is written to a temporary package folder and the registry line of step 2
added to the registry; then the task runs end to end like a built-in one.
"""

import json
import re
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import rulebench
from rulebench.inferential import registry
from rulebench.inferential.judge import judge
from rulebench.inferential.task import InferentialConfig

from tests.stored_json import json_at

CONTRIBUTING = Path(__file__).parents[2] / "CONTRIBUTING.md"


def example_steps() -> tuple[str, str]:
    """The two code blocks of the example: the module and the registry line."""
    section = CONTRIBUTING.read_text(encoding="utf-8").split("### Example: an official", 1)[1]
    blocks = re.findall(r"```python\n(.*?)```", section.split("\n## ", 1)[0], re.DOTALL)
    module, line = blocks[0], blocks[1]
    return module, line


@pytest.fixture
def animals(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Step 1 as an importable module, step 2 in the registry, and a data root for it."""
    module, line = example_steps()
    (tmp_path / "readme_tasks").mkdir()
    (tmp_path / "readme_tasks" / "__init__.py").write_text("")
    (tmp_path / "readme_tasks" / "animals.py").write_text(module)
    monkeypatch.syspath_prepend(str(tmp_path))
    entry = re.search(r'"(\w+)": f"\{_TASKS\}\.(\w+):(\w+)"', line)
    assert entry, line
    name, module_name, attr = entry.groups()
    target = f"readme_tasks.{module_name}:{attr}"
    registry.TASKS.add(name, target, "CONTRIBUTING.md's example")
    root = tmp_path / "data"
    folder = root / "animals"
    folder.mkdir(parents=True)
    records = [
        {"instruction": "", "input": f"A {what} {does}.", "output": gold, "rule": [rule]}
        for what, does, gold, rule in (
            ("robin", "has feathers and lays eggs", "bird", 1),
            ("whale", "feeds its calf milk", "mammal", 0),
            ("trout", "breathes through gills", "fish", 2),
            ("bat", "nurses its young", "mammal", 0),
        )
    ]
    rules = {
        "0": {"NL": "If an animal feeds its young milk, it is a mammal.", "FOL": "∀x (M(x))"},
        "1": {"NL": "If an animal has feathers, it is a bird.", "FOL": "∀x (B(x))"},
        "2": {"NL": "If an animal breathes through gills, it is a fish.", "FOL": "∀x (F(x))"},
    }
    (folder / "test_data.json").write_text(json.dumps(records))
    (folder / "test_rule.json").write_text(json.dumps(rules))
    yield root
    registry.TASKS.discard(name)
    sys.modules.pop("readme_tasks.animals", None)
    sys.modules.pop("readme_tasks", None)


def test_the_contributing_example_is_a_complete_task(animals: Path) -> None:
    definition = registry.task_definition("animals")
    assert definition.name == "animals" and definition.load is not None
    data = definition.load(animals, "animals", "test")
    assert [s.gold for s in data.samples] == ["bird", "mammal", "fish", "mammal"]
    sample = data.samples[0]
    assert judge("animals", "It has feathers. Answer: bird", sample, "paper").correct
    assert not judge("animals", "Answer: fish", sample, "robust").correct


def test_the_contributing_example_runs_like_a_built_in_task(animals: Path, tmp_path: Path) -> None:
    config = InferentialConfig(tasks=("animals",), data_root=str(animals))
    report = rulebench.run("inferential", "scripted/echo", config=config, store=tmp_path / "s")
    assert report.run.status == "completed" and report.completed_now == 4
    rows = rulebench.results(report.run.id, store=tmp_path / "s")
    assert {json_at(row, "metadata", "task") for row in rows} == {"animals"}
    assert all("Decide the class of the animal" in str(row["messages"]) for row in rows)
