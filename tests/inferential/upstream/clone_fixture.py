"""A fixture clone shaped like forangel2014/llm-rule-following: processor.py beside dataset/.

The processor.py is ours (our own sentences, upstream's class, method, args and branches); the
dataset/ folder is the official-format fixture data the loader tests use. It is shaped like
upstream's HEAD, where law-cf's rule-citation prompt raises ValueError; `BUILDS_LAW_CF_CITE` is
the same file as an older commit had it, where that prompt builds.
"""

import json
import shutil
from pathlib import Path

HERE = Path(__file__).parent
PROCESSOR = HERE / "fixture_clone" / "processor.py"
OFFICIAL = HERE.parent / "tasks" / "fixtures" / "official"
COMMIT = "1a2b3c4d" + "0" * 32
_HEAD_DEMO = 'demo = f"""DEMO-LAW-CF-CITE'
BUILDS_LAW_CF_CITE = PROCESSOR.read_text(encoding="utf-8").replace(
    _HEAD_DEMO, _HEAD_DEMO[:7] + _HEAD_DEMO[8:]
)
"""The processor without HEAD's f-string: law-cf's rule-citation prompt builds."""


def make_clone(root: Path, processor_text: str | None = None) -> Path:
    """A clone at `root/clone` with a git HEAD at COMMIT; returns the clone's folder."""
    clone = root / "clone"
    shutil.copytree(OFFICIAL, clone / "dataset")
    text = PROCESSOR.read_text(encoding="utf-8") if processor_text is None else processor_text
    (clone / "processor.py").write_text(text, encoding="utf-8")
    git = clone / ".git"
    (git / "refs" / "heads").mkdir(parents=True)
    (git / "HEAD").write_text("ref: refs/heads/main\n")
    (git / "refs" / "heads" / "main").write_text(COMMIT + "\n")
    return clone


def grow_rules(clone: Path, task: str, count: int) -> None:
    """More rules than the fixture has: upstream's law draws take 3 and 20 distinct ones."""
    path = clone / "dataset" / task / "test_rule.json"
    rules = json.loads(path.read_text(encoding="utf-8"))
    rules.update(
        {f"9{n:02d}": {"NL": f"our extra rule {n}", "FOL": f"x({n})"} for n in range(count)}
    )
    path.write_text(json.dumps(rules, ensure_ascii=False), encoding="utf-8")
