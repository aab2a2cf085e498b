"""The README's manual RuleBench commands give each task the paper's demonstrations.

Table 2 pairs a counterfactual cell with the factual cell of the same shots, so a command that
gives ulogic-cf two demonstrations where the paper's design (and ulogic) gives one can never
pair; the commands are read from the README as written.
"""

import re
from pathlib import Path

from rulebench.inferential.settings import Grid

README = Path(__file__).parents[2] / "README.md"


def manual_commands() -> list[str]:
    """The `rulebench run inferential` lines of "Reproducing the papers" naming tasks and shots."""
    section = README.read_text(encoding="utf-8").split("\n## Reproducing the papers", 1)[1]
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
