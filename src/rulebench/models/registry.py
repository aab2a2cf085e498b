"""Turns a "provider/name" spec into a backend, importing the backend's library only when chosen."""

import difflib
import importlib
import importlib.util
from typing import NamedTuple, Protocol, cast

from rulebench.core.errors import ConfigError
from rulebench.models.base import BackendOptions, Model

EMBEDDED_MODEL_NAME = "SmolLM2-135M-Instruct"
DEFAULT_MODEL = f"llamacpp/{EMBEDDED_MODEL_NAME}"
"""What runs when no model is given: the embedded GGUF on llama.cpp, offline."""


class ModelFactory(Protocol):
    """What a backend offers the registry: build a model from the rest of the spec."""

    def __call__(self, name: str, options: BackendOptions) -> Model:
        """Build the model `name` (the part of the spec after the provider)."""
        ...


class Provider(NamedTuple):
    """A registered backend: where its class lives and how to get its dependencies."""

    target: str
    """"module:attr" of the backend's factory, imported on first use so unused backends cost
    nothing; attr may be dotted (a classmethod)."""
    description: str
    example: str
    extra: str | None = None
    """The pip extra that installs the backend's library, for the install hint."""
    modules: tuple[str, ...] = ()
    """Libraries the backend imports only when it builds or runs a model (torch...): checked
    before building, since the backend module itself imports without them."""


PROVIDERS: dict[str, Provider] = {
    "openai": Provider(
        "rulebench.models.openai.backend:OpenAIModel.create_openai",
        "OpenAI chat API; OPENAI_API_KEY, OPENAI_BASE_URL or --base-url",
        "openai/gpt-4o-mini",
    ),
    "openai-api": Provider(
        "rulebench.models.openai.backend:OpenAIModel.create_compatible",
        "any OpenAI-compatible server (vLLM, SGLang, llama.cpp, Ollama, OpenRouter); "
        "<PROVIDER>_API_KEY and <PROVIDER>_BASE_URL",
        "openai-api/vllm/meta-llama/Llama-3.1-8B-Instruct",
    ),
    "llamacpp": Provider(
        "rulebench.models.llamacpp.backend:LlamaCppModel.create",
        f"llama.cpp on the CPU: a .gguf path, or {EMBEDDED_MODEL_NAME} (embedded, offline)",
        DEFAULT_MODEL,
        extra="llamacpp",
        modules=("llama_cpp",),
    ),
    "hf": Provider(
        "rulebench.models.hf.backend:HFModel.create",
        "transformers on CPU or GPU: a local path or hub name (batched; gradients for GCG/IRFT)",
        f"hf/{EMBEDDED_MODEL_NAME}",
        extra="hf",
        modules=("torch", "transformers"),
    ),
    "scripted": Provider(
        "rulebench.models.scripted:ScriptedModel.create",
        "deterministic replies for tests and dry runs: echo, fixed, rules, replay",
        "scripted/echo",
    ),
}


def resolve_spec(spec: str | None) -> str:
    """The spec to run: the embedded default only when none was given (None), never for "".

    An empty `-m ''` (an unset shell variable, say) is a mistake to report, not a request for
    the default: running the embedded model instead would produce numbers for the wrong model.
    """
    if spec is None:
        return DEFAULT_MODEL
    parse_spec(spec)
    return spec


def parse_spec(spec: str) -> tuple[str, str]:
    """Split "provider/name" and check the provider exists, suggesting the closest one if not."""
    if not spec.strip():
        raise ConfigError(
            f"the model spec (-m/--model, or model= in the Python API) is empty: give "
            f"provider/name, e.g. {PROVIDERS['openai'].example}, or leave it out for the "
            f"embedded default {DEFAULT_MODEL}"
        )
    provider, sep, name = spec.partition("/")
    if provider not in PROVIDERS:
        close = difflib.get_close_matches(provider, PROVIDERS, n=1)
        hint = f" Did you mean '{close[0]}'?" if close else ""
        raise ConfigError(
            f"unknown model provider '{provider}' in '{spec}'.{hint} "
            f"Known providers: {', '.join(PROVIDERS)} (a spec is provider/name, e.g. "
            f"{PROVIDERS['openai'].example})"
        )
    if not sep or not name:
        raise ConfigError(
            f"model spec '{spec}' has no model name: write {provider}/<name>, "
            f"e.g. {PROVIDERS[provider].example}"
        )
    return provider, name


def load_backend(provider: str) -> ModelFactory:
    """Import a provider's backend class, turning a missing library into an install hint."""
    entry = PROVIDERS[provider]
    missing = missing_modules(entry.modules)
    if missing:
        raise ConfigError(
            f"the {provider} backend needs {', '.join(missing)}, not installed: "
            f"{_install_hint(entry)}"
        )
    module_name, _, attr_path = entry.target.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise ConfigError(
            f"the {provider} backend needs {exc.name or 'a missing library'}: "
            f"{_install_hint(entry)}"
        ) from exc
    factory: object = module
    for attr in attr_path.split("."):
        factory = getattr(factory, attr)
    return cast(ModelFactory, factory)


def missing_modules(names: tuple[str, ...]) -> list[str]:
    """The top-level modules in `names` that cannot be imported, found without importing them.

    find_spec only locates a module, so checking torch costs microseconds, not seconds.
    """
    missing = []
    for name in names:
        try:
            found = importlib.util.find_spec(name) is not None
        except ValueError:  # imported already, without a __spec__: present
            found = True
        if not found:
            missing.append(name)
    return missing


def _install_hint(entry: Provider) -> str:
    return f"pip install 'rulebench[{entry.extra}]'" if entry.extra else "pip install rulebench"


def create_model(spec: str | None = None, options: BackendOptions | None = None) -> Model:
    """Build the model a spec names; the embedded default when `spec` is None (not "")."""
    provider, name = parse_spec(resolve_spec(spec))
    return load_backend(provider)(name, options or BackendOptions())
