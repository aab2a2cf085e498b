"""What the llamacpp backend must know of a GGUF before loading it: chat template, BOS/EOS text.

Importing llama.cpp and loading a model is most of the start-up of a run whose
replies all come from the response cache. These facts are read from the loaded model once and
kept in the user cache by file version (path, size, mtime), so a later run builds the model's
prompts and identity without loading it; the model then loads on the first request it must
answer (see LlamaCppModel).
"""

from dataclasses import asdict, dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from rulebench.models.local_chat import (
    NO_VARIABLES,
    TemplateRenderer,
    TemplateVariables,
    template_takes_system,
)
from rulebench.models.user_cache import FileFacts, file_key

FACTS_VERSION = 1
"""Bumped when the facts' meaning changes: older entries are then read again from the model."""

_STORED = FileFacts("gguf_facts.json")


@dataclass(frozen=True)
class GgufFacts:
    """A GGUF's chat template and special-token text, as a loaded model reports them."""

    chat_template: str
    """tokenizer.chat_template; empty for a base model, which then gets a transcript."""
    bos_text: str
    eos_text: str
    takes_system: bool
    """Whether the chat template keeps a system message (local_chat.template_takes_system)."""

    @classmethod
    def of_template(cls, chat_template: str, bos_text: str, eos_text: str) -> "GgufFacts":
        """The facts of a loaded model, probing its template for a system role."""
        takes_system = bool(chat_template) and template_takes_system(
            chat_renderer(chat_template, bos_text, eos_text)
        )
        return cls(chat_template, bos_text, eos_text, takes_system)


def chat_renderer(template: str, bos_text: str, eos_text: str) -> TemplateRenderer:
    """Render with llama.cpp's own Jinja2 chat formatter (sandbox, raise_exception, tojson...).

    The formatter, and llama_cpp with it, is imported on the first prompt rendered, not before.
    Template variables (`enable_thinking`) are names beside `messages`, as servers pass their
    chat_template_kwargs.
    """

    def render(
        messages: list[dict[str, str]], variables: TemplateVariables = NO_VARIABLES, /
    ) -> str:
        # llama_cpp's message TypedDicts are no plain role/content dicts to mypy.
        formatter: Any = _formatter(template, bos_text, eos_text)
        return str(formatter(messages=messages, **variables).prompt)

    return render


@lru_cache(maxsize=16)
def _formatter(template: str, bos_text: str, eos_text: str) -> Any:
    """A compiled formatter per template; rendering with it is thread-safe."""
    from llama_cpp.llama_chat_format import Jinja2ChatFormatter

    return Jinja2ChatFormatter(template, eos_text, bos_text)


def cached_facts(path: Path) -> GgufFacts | None:
    """The facts kept for this version of the file, or None (never seen, changed, unreadable)."""
    try:
        stored = _STORED.get(file_key(path))
    except OSError:
        return None
    if stored is None or stored.get("version") != FACTS_VERSION:
        return None
    try:
        return GgufFacts(
            chat_template=str(stored["chat_template"]),
            bos_text=str(stored["bos_text"]),
            eos_text=str(stored["eos_text"]),
            takes_system=bool(stored["takes_system"]),
        )
    except KeyError:  # written by something else: read the model again
        return None


def remember_facts(path: Path, facts: GgufFacts) -> None:
    """Keep a model's facts for later processes (skipped if the cache cannot be written)."""
    try:
        key = file_key(path)
    except OSError:
        return
    _STORED.put(key, {"version": FACTS_VERSION, **asdict(facts)})
