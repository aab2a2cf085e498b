"""MkDocs hook: the command-line reference (and strict fixes), rendered from the code at build.

`docs/reference/cli.md` holds the marker line `<!-- rulebench-cli -->`; each build replaces it
with every visible command, its usage, help, arguments and options, read from the click
commands typer builds (`typer.main.get_command`), so the page cannot drift from `--help`.
Hidden commands and options (old names kept for one release) stay out, as in `--help`.
"""

import html
import inspect
import re
from collections.abc import Iterator
from typing import Any

MARKER = "<!-- rulebench-cli -->"
PAGE = "reference/cli.md"
FIXES_MARKER = "<!-- rulebench-strict-fixes -->"
"""On the scoring page: the strict fixes' table, from `rulebench.scenarios.matching`."""
_MARKDOWN_SPECIALS = re.compile(r"([\\`*_\[\]|#])")


def on_page_markdown(markdown: str, page: Any, **_: Any) -> str:
    """Replace the markers with the rendered commands and the strict fixes."""
    if page.file.src_uri == PAGE and MARKER in markdown:
        markdown = markdown.replace(MARKER, render_reference())
    if FIXES_MARKER in markdown:
        markdown = markdown.replace(FIXES_MARKER, render_strict_fixes())
    return markdown


def render_strict_fixes() -> str:
    """Every strict-mode fix by name, as `rulebench list strict-fixes` lists them."""
    from rulebench.scenarios.matching import STRICT_FIXES

    rows = [f"| `{name}` | {_escape(text)} |" for name, text in STRICT_FIXES.items()]
    return "\n".join(["| Fix | What strict mode does |", "|---|---|", *rows, ""])


def render_reference() -> str:
    """Every visible `rulebench` command as Markdown, in `--help` order."""
    import typer.main

    from rulebench.cli.app import app

    root = typer.main.get_command(app)
    context = root.context_class(root, info_name="rulebench")
    return "\n".join(_command_sections(context, depth=2))


def _command_sections(context: Any, depth: int) -> Iterator[str]:
    """The section of one command, then those of its visible subcommands."""
    command = context.command
    yield f"{'#' * min(depth, 6)} `{context.command_path}`"
    yield ""
    yield f"```text\n{_usage(context)}\n```"
    yield ""
    yield from _help_paragraphs(command.help or "")
    yield from _parameter_table(context)
    for name in _subcommand_names(context):
        sub = command.get_command(context, name)
        sub_context = type(context)(sub, info_name=name, parent=context)
        yield from _command_sections(sub_context, depth + 1)


def _subcommand_names(context: Any) -> list[str]:
    """A group's visible subcommands (none for a single command)."""
    command = context.command
    if not hasattr(command, "list_commands"):
        return []
    names = command.list_commands(context)
    return [name for name in names if not command.get_command(context, name).hidden]


def _usage(context: Any) -> str:
    pieces = context.command.collect_usage_pieces(context)
    return " ".join([context.command_path, *pieces])


def _help_paragraphs(text: str) -> Iterator[str]:
    """Help text as Markdown paragraphs; a click no-rewrap paragraph keeps its line breaks."""
    for paragraph in inspect.cleandoc(text).split("\n\n"):
        if paragraph.startswith("\b"):
            yield "```text\n" + _plain(paragraph.strip("\b\n")) + "\n```"
        else:
            yield _escape(_plain(" ".join(paragraph.split())))
        yield ""


def _parameter_table(context: Any) -> Iterator[str]:
    """One row per visible argument and option, with its value, default and env var."""
    params = context.command.get_params(context)
    rows = [record for param in params if (record := _row(param, context))]
    if not rows:
        return
    yield "| Argument or option | Description |"
    yield "|---|---|"
    for names, description in rows:
        yield f"| `{names}` | {description} |"
    yield ""


def _row(param: Any, context: Any) -> tuple[str, str] | None:
    record = param.get_help_record(context)
    if record is None:  # hidden
        return None
    names, description = record
    written = getattr(param, "help", None) or ""
    # The record is the help as written (rich markup) and then typer's [default: ...] notes.
    notes = description.removeprefix(written).strip()
    text = " ".join(part for part in (_plain(" ".join(written.split())), notes) if part)
    return names.replace("|", "\\|"), _escape(text)


def _plain(text: str) -> str:
    """Help written in rich markup (the app's markup mode) as the terminal shows it."""
    from rich.errors import MarkupError
    from rich.text import Text

    try:
        return Text.from_markup(text).plain
    except MarkupError:
        return text


def _escape(text: str) -> str:
    """Help text shown as written: no Markdown or HTML read into it."""
    return _MARKDOWN_SPECIALS.sub(r"\\\1", html.escape(text, quote=False))
