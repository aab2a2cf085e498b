"""The docs' commands are found as a reader pastes them, and each one runs or is listed."""

from pathlib import Path

import pytest

from tests.docs.doc_blocks import doc_pages, read_page
from tests.docs.doc_plans import load_unrunnable, plan, unaccounted, unused
from tests.docs.doc_rewrite import rewrite

PAGE = """# A page

```bash
# a comment line
FOLDER=/tmp/try
rulebench run scenarios -s basic \\
    -m openai/gpt-4o-mini --base-url http://localhost:8000/v1   # the comment
printf 'hello\\n' | rulebench play Encryption --save $FOLDER/cases.jsonl
RULEBENCH_STORE=x.sqlite rulebench runs list > runs.txt
rulebench run scenarios -s ~/clone/basic
```

```console
$ rulebench list scenarios
Authentication  ...
```

```text
rulebench this is output, not a command
```
"""


def _page(tmp_path: Path, text: str = PAGE) -> Path:
    page = tmp_path / "page.md"
    page.write_text(text, encoding="utf-8")
    return page


def test_commands_are_read_as_a_shell_reads_them(tmp_path: Path) -> None:
    commands = read_page(_page(tmp_path)).commands
    assert [(c.line, c.words[1:3]) for c in commands] == [
        (6, ("run", "scenarios")),
        (8, ("play", "Encryption")),
        (9, ("runs", "list")),
        (10, ("run", "scenarios")),
        (14, ("list", "scenarios")),
    ]
    first, played, listed = commands[:3]
    assert first.words[-2:] == ("--base-url", "http://localhost:8000/v1")
    assert first.text.endswith("http://localhost:8000/v1")  # continuation joined, comment dropped
    assert played.stdin == "hello\n"
    assert played.words[-1] == "/tmp/try/cases.jsonl"  # the page's variable
    assert listed.stdout == "runs.txt"
    assert listed.words == ("rulebench", "runs", "list")  # no environment prefix
    assert commands[-1].where == "page.md:14"


def test_unreachable_models_become_scripted_and_sizes_shrink() -> None:
    words: tuple[str, ...] = ("rulebench", "run", "scenarios", "-m", "openai/gpt-4o")
    words += ("--base-url", "http://h/v1")
    words += ("-M", "max_connections=128", "--per-group", "10")
    assert rewrite(words, producer=False) == (
        "rulebench", "run", "scenarios", "-m", "scripted/echo", "--per-group", "1", "--limit", "4"
    )  # fmt: skip
    given = ("rulebench", "run", "inferential", "-m", "scripted/fixed", "-M", "reply=x", "-n", "2")
    assert rewrite(given, producer=False) == (*given, "--per-group", "2")


def test_the_embedded_model_stays_where_the_command_is_about_it() -> None:
    assert rewrite(("rulebench", "run"), producer=False) == ("rulebench", "run")
    loglik = ("rulebench", "run", "inferential", "--scoring", "loglik", "-m")
    assert rewrite((*loglik, "hf/SmolLM2-135M-Instruct"), producer=False)[:7] == (
        *loglik, "llamacpp/SmolLM2-135M-Instruct"
    )  # fmt: skip
    assert rewrite(("rulebench", "run"), producer=True)[2:] == ("smoke", "-m", "scripted/echo")


def test_a_command_that_cannot_run_and_is_not_listed_is_named_by_page_and_line(
    tmp_path: Path,
) -> None:
    shell = read_page(_page(tmp_path))
    lines = unaccounted([shell], load_unrunnable())
    assert len(lines) == 1
    assert lines[0].startswith("page.md:10: `rulebench run scenarios -s ~/clone/basic`: ")
    assert "unrunnable_commands.toml does not list it" in lines[0]


def test_run_ids_and_saved_files_come_from_the_page_s_earlier_commands(tmp_path: Path) -> None:
    text = PAGE.replace("```console", "```bash\nrulebench report RUN_A RUN_B\n```\n\n```console")
    shell = read_page(_page(tmp_path, text))
    report = next(c for c in shell.commands if c.words[1] == "report")
    steps = plan(report, shell, load_unrunnable()).steps
    assert [s.makes for s in steps] == [("RUN_A", "RUN_B"), ("RUN_B",), ()]
    models = [s.words[s.words.index("-m") + 1] for s in steps[:2]]
    assert models == ["scripted/echo", "scripted/rules"]  # two runs to compare


def test_every_documented_command_runs_in_the_suite_or_is_listed_with_why() -> None:
    shells = [read_page(page) for page in doc_pages()]
    assert sum(len(shell.commands) for shell in shells) > 0
    problems = unaccounted(shells, load_unrunnable()) + unused(shells, load_unrunnable())
    if problems:
        pytest.fail("\n".join(problems), pytrace=False)
