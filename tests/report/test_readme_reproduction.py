"""The RuleBench guide's one-experiment-at-a-time commands give each task the paper's shots.

Table 2 pairs a counterfactual cell with the factual cell of the same shots, so a command that
gives ulogic-cf two demonstrations where the paper's design (and ulogic) gives one can never
pair; the commands are read from docs/guides/rulebench-tables.md as written.
"""

import re
from pathlib import Path

from rulebench.inferential.settings import Grid

GUIDE = Path(__file__).parents[2] / "docs" / "guides" / "rulebench-tables.md"


def manual_commands() -> list[str]:
    """The guide's `rulebench run inferential` lines of section 3 naming tasks and shots."""
    section = GUIDE.read_text(encoding="utf-8").split("\n## 3. Run the five experiments", 1)[1]
    section = section.split("\n## ", 1)[0]
    blocks = [part.split("```", 1)[0] for part in section.split("```bash\n")[1:]]
    return [
        line
        for block in blocks
        for line in block.splitlines()
        if line.startswith("rulebench run inferential") and " -t " in line and "--shots" in line
    ]


def test_manual_commands_give_every_task_the_papers_shots() -> None:
    commands = manual_commands()
    tasks = {task for line in commands for task in re.findall(r"-t (\S+)", line)}
    assert {"clutrr-cf", "ulogic-cf", "law-cf"} <= tasks  # experiments 4-5 are all there
    paper = Grid(paper_shots=True)
    for line in commands:
        [shots] = re.findall(r"--shots (\d+)", line)
        for task in re.findall(r"-t (\S+)", line):
            assert int(shots) == paper.shots_for(task), line
