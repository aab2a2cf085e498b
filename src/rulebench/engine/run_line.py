"""The settings a run is started with, in the words of the line every front end shows first.

"max_tokens=48 temperature=0.0 concurrency=8 limit=5; note...": the decoding and the
settings that cut or change the run, then its task's protocol notes (`protocol_notes`), so a
run says before it starts what it will do and the command line, `train star` and the batch
runner say it alike.
"""

from rulebench.core.messages import DEFAULT_TAGS, GenerateConfig
from rulebench.engine.catalog import protocol_notes
from rulebench.engine.runner import RunSpec


def settings_terms(spec: RunSpec) -> str:
    """The run's settings and protocol notes as one plain-text line."""
    settings = spec.generate
    return (
        f"max_tokens={settings.max_tokens} "
        f"temperature={settings.temperature} concurrency={spec.concurrency}"
        + (" (adapts on served models)" if spec.adaptive_concurrency else "")
        + reasoning_terms(settings)
        + (f" limit={spec.limit}" if spec.limit is not None else "")
        + (f" shard={spec.shard}" if spec.shard is not None else "")
        + ("" if spec.use_cache else " (no cache)")
        + "".join(f"; {note}" for note in protocol_notes(spec))
    )


def reasoning_terms(settings: GenerateConfig) -> str:
    """The reasoning options set, as the run line names them (nothing when none is set)."""
    options = settings.reasoning
    terms = []
    if options.thinking is not None:
        terms.append(f"thinking={'on' if options.thinking else 'off'}")
    if options.effort is not None:
        terms.append(f"reasoning_effort={options.effort}")
    if options.tags != DEFAULT_TAGS:
        terms.append(f"reasoning_tags='{options.tags.start} {options.tags.end}'")
    return "".join(f" {term}" for term in terms)
