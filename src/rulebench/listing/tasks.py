"""The tasks `rulebench run` takes, and the inferential datasets `run inferential -t` takes."""

from rulebench.core.errors import RulebenchError
from rulebench.listing.entry import Listed


class ListedTask(Listed):
    """A registered task and how a person starts it."""

    name: str
    description: str
    command: str
    """The command that runs it (`rulebench run NAME` unless another command does)."""
    max_tokens: int
    """The reply limit of a config left at its defaults."""


class ListedInferentialTask(Listed):
    """An inferential task as its definition declares it."""

    name: str
    package: str
    """"rulebench", a plugin's distribution or `--include FOLDER`."""
    source: str
    """Where its samples come from: generated, official files (`--data-root`) or a plugin's."""
    description: str
    rules_few_all: tuple[int, int]
    """How many rules a prompt holds in the few-rules and all-rules settings."""
    paper_shots: int
    answers: tuple[str, ...]
    """The closed answer vocabulary; empty when answers are open."""
    robust_fixes: tuple[str, ...]
    """The quirk fixes robust extraction applies."""


class BrokenInferentialTask(Listed):
    """A registered inferential task whose definition failed to load (a plugin's, mostly)."""

    name: str
    package: str
    error: str


InferentialEntry = ListedInferentialTask | BrokenInferentialTask


def list_tasks() -> list[ListedTask]:
    """Every registered task and the command that runs it."""
    from rulebench.engine.catalog import TASKS, config_type

    return [
        ListedTask(
            name=name,
            description=entry.description,
            command=entry.command or f"rulebench run {name}",
            # A config left at its defaults, unvalidated: the judge's needs a run to judge.
            max_tokens=config_type(name).model_construct().generation_defaults().max_tokens,
        )
        for name, entry in TASKS.items()
    ]


def list_inferential() -> list[InferentialEntry]:
    """Every inferential task; one that fails to load is listed with its error."""
    from rulebench.inferential.registry import TASKS

    found: list[InferentialEntry] = []
    for name, entry in TASKS.entries().items():
        try:
            definition = TASKS.load(name)
        except RulebenchError as exc:
            found.append(BrokenInferentialTask(name=name, package=entry.package, error=str(exc)))
            continue
        found.append(
            ListedInferentialTask(
                name=name,
                package=entry.package,
                source=_source(entry.package, entry.is_plugin, definition.is_generated),
                description=definition.summary,
                rules_few_all=definition.rule_counts,
                paper_shots=definition.paper_shots,
                answers=definition.answers,
                robust_fixes=definition.judges.fixes,
            )
        )
    return found


def _source(package: str, is_plugin: bool, is_generated: bool) -> str:
    if is_plugin:
        return f"{package}: {'generated' if is_generated else 'files'}"
    return "generated" if is_generated else "official (--data-root)"
