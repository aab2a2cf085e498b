"""Find the user's clone of forangel2014/llm-rule-following and check its prompt builder.

The clone is found from `--upstream PATH` (the clone, or its `processor.py`) or from the data
folder (`--data-root CLONE/dataset`: `processor.py` sits beside it). The file is parsed (never
imported) to check that it holds the class and method rulebench will call, so a wrong file is
one clear error before any child process starts.
"""

import ast
from pathlib import Path

from rulebench.core.errors import ConfigError
from rulebench.core.wording import UpstreamText
from rulebench.upstream.clone import describe_clone, read_source

PROJECT = "forangel2014/llm-rule-following"
PROCESSOR_FILE = "processor.py"
PROCESSOR_CLASS = "TaskDataProcessor"
PROMPT_METHOD = "prompt"
_CLONE_HINT = (
    f"--prompts upstream reads RuleBench's prompt text from your own clone of {PROJECT} "
    f"(git clone https://github.com/{PROJECT}): pass --upstream PATH (the clone or its "
    f"{PROCESSOR_FILE}), or --data-root CLONE/dataset"
)


def find_processor(upstream: str | None, data_root: str | None) -> Path:
    """The clone's processor.py, from --upstream or beside the --data-root folder."""
    if upstream is not None:
        path = Path(upstream)
        candidate = path / PROCESSOR_FILE if path.is_dir() else path
        if not candidate.is_file():
            raise ConfigError(f"{candidate}: not found ({_CLONE_HINT})")
        return candidate
    if data_root is None:
        raise ConfigError(_CLONE_HINT)
    candidate = Path(data_root).parent / PROCESSOR_FILE
    if not candidate.is_file():
        raise ConfigError(
            f"{candidate}: not found beside the data folder {data_root} ({_CLONE_HINT})"
        )
    return candidate


def check_processor(path: Path) -> None:
    """The file defines the class with the prompt method, or a ConfigError naming the piece."""
    source = read_source(path, f"upstream's prompt builder, {PROJECT}")
    try:
        tree = ast.parse(source, filename=str(path))
    except SyntaxError as exc:
        raise ConfigError(f"{path}: line {exc.lineno}: not valid Python ({exc.msg})") from None
    classes = [n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == PROCESSOR_CLASS]
    if not classes:
        raise ConfigError(
            f"{path}: no class {PROCESSOR_CLASS} (upstream builds its prompts in "
            f"{PROCESSOR_CLASS}.{PROMPT_METHOD}); is this {PROJECT}'s {PROCESSOR_FILE}?"
        )
    methods = {n.name for n in classes[0].body if isinstance(n, ast.FunctionDef)}
    if PROMPT_METHOD not in methods:
        raise ConfigError(
            f"{path}: class {PROCESSOR_CLASS} has no method {PROMPT_METHOD} "
            f"(it has: {', '.join(sorted(methods)) or 'none'})"
        )


def describe(path: Path) -> UpstreamText:
    """The record of the clone the prompt text comes from (commit and the file's hash)."""
    return describe_clone(PROJECT, path.parent, [path])
