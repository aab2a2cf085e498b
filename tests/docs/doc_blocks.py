"""The `rulebench` commands in the docs' shell blocks, each with the page and line it starts on.

A page's shell block is read as a user pastes it: `\\` continuations joined, `$ ` prompts and
`# comments` dropped, `a && b`, `a; b` and `a | b` split into their commands, and `NAME=value`
lines remembered for the commands after them on the page.
"""

import re
import shlex
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SHELL_LANGUAGES = frozenset({"bash", "sh", "shell", "console", "zsh"})
OPERATORS = frozenset({"&&", "||", ";", "|", "&"})
REDIRECTS = frozenset({">", ">>", "<", "2>", "2>>", "&>", ">&", "2>&1"})
ASSIGNMENT = re.compile(r"(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)=(.*)")
VARIABLE = re.compile(r"\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))")
PLACEHOLDER = re.compile(r"<([A-Za-z][\w-]*)>")
"""A `<model>` the reader fills in: read as the word `{model}`, not as a redirect."""
FILE_HEADER = re.compile(r"#\s*([\w.-]+\.(?:toml|yaml|yml|json|jsonl))\b")


@dataclass(frozen=True)
class DocCommand:
    """One `rulebench` command on a page, as written there."""

    page: str
    """The page's path from the checkout's root, e.g. docs/getting-started.md."""
    line: int
    """The page line the command starts on (1-based)."""
    text: str
    """The command as the page writes it: one line, continuations joined, no comment."""
    words: tuple[str, ...]
    """Its shell words from `rulebench` on, the page's variables expanded; an `ENV=value`
    prefix or a launcher (`python -m`, `torchrun ... -m`) before it is dropped."""
    stdin: str | None = None
    """Text piped into it by a `printf` or `echo` before the `|`."""
    stdout: str | None = None
    """The file its output is redirected to (`> FILE`)."""
    launcher: tuple[str, ...] = field(default=())
    """What ran `rulebench` on the page when not the shell itself (`torchrun ... -m`)."""

    @property
    def where(self) -> str:
        """page:line, as a failing test names the command."""
        return f"{self.page}:{self.line}"


def doc_pages() -> list[Path]:
    """README.md, CONTRIBUTING.md and every page under docs/."""
    pages = [ROOT / "README.md", ROOT / "CONTRIBUTING.md"]
    return pages + sorted((ROOT / "docs").rglob("*.md"))


def fenced_blocks(text: str) -> Iterator[tuple[str, int, list[str]]]:
    """Each fenced block's language, the page line of its first body line, and its body."""
    lines = text.splitlines()
    index = 0
    while index < len(lines):
        opening = re.match(r"(\s*)(```+|~~~+)\s*([\w+-]*)", lines[index])
        index += 1
        if opening is None:
            continue
        indent, fence, language = opening.groups()
        start, body = index + 1, []
        while index < len(lines) and not lines[index].strip().startswith(fence):
            body.append(lines[index].removeprefix(indent))
            index += 1
        index += 1
        yield language.lower(), start, body


def logical_lines(language: str, body: list[str], start: int) -> Iterator[tuple[int, str]]:
    """The block's commands: continuations joined, prompts and comments dropped.

    In a `console` block only `$ ` lines are commands (the rest is their output).
    """
    pending: list[str] = []
    first = start
    for number, raw in enumerate(body, start=start):
        line = raw.strip()
        if not pending:
            first = number
            if line.startswith("$ "):
                line = line[2:]
            elif language == "console":
                continue
        continued = line.endswith("\\")
        pending.append(line.removesuffix("\\").strip() if continued else line)
        if not continued:
            text = drop_comment(" ".join(part for part in pending if part))
            pending = []
            if text:
                yield first, text


def drop_comment(text: str) -> str:
    """The line without its `# comment` (a `#` that starts a word outside quotes)."""
    quote = ""
    for index, char in enumerate(text):
        if quote:
            quote = "" if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char == "#" and (index == 0 or text[index - 1].isspace()):
            return text[:index].rstrip()
    return text.strip()


def expand(text: str, variables: dict[str, str]) -> str:
    """The line with the page's own `$NAME`s replaced; other variables stay as written."""

    def value(match: re.Match[str]) -> str:
        name = match.group(1) or match.group(2)
        return variables.get(name, match.group(0))

    return VARIABLE.sub(value, text)


def shell_words(text: str) -> list[str]:
    """The line split as the shell would, operators (`|`, `&&`, `>`) as words of their own."""
    lexer = shlex.shlex(PLACEHOLDER.sub(r"{\1}", text), posix=True, punctuation_chars=";&|<>")
    lexer.whitespace_split = True
    lexer.commenters = ""
    return list(lexer)


def segments(words: list[str]) -> list[tuple[str, list[str]]]:
    """The simple commands of a line, each with the operator before it ("" for the first)."""
    found: list[tuple[str, list[str]]] = [("", [])]
    for word in words:
        if word in OPERATORS:
            found.append((word, []))
        else:
            found[-1][1].append(word)
    return [(operator, part) for operator, part in found if part]


def assignment(text: str) -> tuple[str, str] | None:
    """`NAME=value` (or `export NAME=value`) alone on a line: the name and its value."""
    words = shell_words(text.removeprefix("export "))
    match = ASSIGNMENT.fullmatch(words[0]) if len(words) == 1 else None
    return (match.group(1), match.group(2)) if match else None


@dataclass(frozen=True)
class PageShell:
    """What a page's shell blocks do, in page order."""

    commands: tuple[DocCommand, ...]
    writes: dict[str, tuple[int, str]]
    """Files an `echo TEXT > FILE` or `printf TEXT > FILE` line writes: FILE -> (line, TEXT)."""
    installs: tuple[tuple[int, str], ...]
    """What `pip install TARGET` lines install: (line, TARGET)."""


def read_page(page: Path) -> PageShell:
    """The page's `rulebench` commands, each expanded with the page's variables set before it."""
    name = page.relative_to(ROOT).as_posix() if page.is_relative_to(ROOT) else page.name
    variables: dict[str, str] = {}
    commands: list[DocCommand] = []
    writes: dict[str, tuple[int, str]] = {}
    installs: list[tuple[int, str]] = []
    for language, start, body in fenced_blocks(page.read_text(encoding="utf-8")):
        if language not in SHELL_LANGUAGES:
            continue
        for line, text in logical_lines(language, body, start):
            assigned = assignment(expand(text, variables))
            if assigned is not None:
                variables[assigned[0]] = assigned[1]
                continue
            parts = segments(shell_words(expand(text, variables)))
            commands.extend(_line_commands(DocCommand(name, line, text, ()), parts))
            for _, part in parts:
                if part[:2] == ["pip", "install"]:
                    installs.extend((line, target) for target in part[2:])
                words, target = _without_redirect(part)
                written = _piped_text(words)
                if target is not None and written is not None:
                    writes[target] = (line, written)
    return PageShell(tuple(commands), writes, tuple(installs))


def _line_commands(where: DocCommand, parts: list[tuple[str, list[str]]]) -> Iterator[DocCommand]:
    """The `rulebench` commands among one line's simple commands."""
    for index, (operator, part) in enumerate(parts):
        words = _without_prefix(part)
        if "rulebench" not in words:
            continue
        at = words.index("rulebench")
        if at > 0 and words[at - 1] != "-m":
            continue
        stdin = _piped_text(parts[index - 1][1]) if operator == "|" and index else None
        words, stdout = _without_redirect(words[at:])
        yield replace(
            where, words=tuple(words), stdin=stdin, stdout=stdout, launcher=tuple(part[:at])
        )


def _without_prefix(words: list[str]) -> list[str]:
    """The words after any `NAME=value` environment prefix."""
    index = 0
    while index < len(words) and ASSIGNMENT.fullmatch(words[index]):
        index += 1
    return words[index:]


def _without_redirect(words: list[str]) -> tuple[list[str], str | None]:
    """The command's words without `> FILE`, and FILE."""
    for index, word in enumerate(words):
        if word in (">", ">>") and index + 1 < len(words):
            return words[:index] + words[index + 2 :], words[index + 1]
    return words, None


def _piped_text(words: list[str]) -> str | None:
    """What `printf FORMAT` or `echo WORDS` writes (to a pipe or a file)."""
    if words[:1] == ["printf"] and len(words) == 2:
        return words[1].replace("\\n", "\n").replace("\\t", "\t")
    if words[:1] == ["echo"]:
        return " ".join(words[1:]) + "\n"
    return None


def doc_commands() -> list[DocCommand]:
    """Every `rulebench` command of every page, pages in order."""
    return [command for page in doc_pages() for command in read_page(page).commands]


def doc_files() -> dict[str, str]:
    """Files the docs give whole: a toml, yaml or json block opening with `# NAME.EXT`."""
    files: dict[str, str] = {}
    for page in doc_pages():
        for language, _, body in fenced_blocks(page.read_text(encoding="utf-8")):
            header = (
                FILE_HEADER.match(body[0]) if body and language not in SHELL_LANGUAGES else None
            )
            if header is not None:
                files.setdefault(header.group(1), "\n".join(body) + "\n")
    return files
