"""Turns a "provider/name" spec into a backend, importing the backend's library only when chosen.

Backends from other packages register their factory's "module:attr" string in the
`rulebench.models` entry-point group; the entry point's name is the provider (`myprov/name`).
"""

from typing import NamedTuple, Protocol, cast

from rulebench.core.did_you_mean import did_you_mean
from rulebench.core.errors import ConfigError, RulebenchError
from rulebench.models.base import BackendOptions, Model, ModelInfo
from rulebench.plugins.foreign_code import describe_failure, is_stop, missing_modules
from rulebench.plugins.lazy_registry import LazyRegistry

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


MODELS_GROUP = "rulebench.models"
"""The entry-point group of model backends from other packages."""


def _check(name: str, found: object) -> ModelFactory:
    if not callable(found):
        raise TypeError(f"it is {found!r}, not a callable (name, BackendOptions) -> Model")
    return cast(ModelFactory, found)


BACKENDS: LazyRegistry[ModelFactory] = LazyRegistry(
    "model provider",
    {name: provider.target for name, provider in PROVIDERS.items()},
    MODELS_GROUP,
    _check,
)
"""Provider -> backend factory: the built-in `PROVIDERS`, then plugins, imported on first use."""


def _example(provider: str) -> str:
    found = PROVIDERS.get(provider)
    return found.example if found else f"{provider}/<name>"


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
    if provider not in BACKENDS:
        raise ConfigError(
            f"unknown model provider '{provider}' in '{spec}'.{did_you_mean(provider, BACKENDS)} "
            f"Known providers: {', '.join(BACKENDS)} (a spec is provider/name, e.g. "
            f"{PROVIDERS['openai'].example})"
        )
    if not sep or not name:
        raise ConfigError(
            f"model spec '{spec}' has no model name: write {provider}/<name>, "
            f"e.g. {_example(provider)}"
        )
    return provider, name


def load_backend(provider: str) -> ModelFactory:
    """Import a provider's backend factory, turning a missing library into an install hint.

    A plugin's failures are the registry's one-line errors naming the plugin's package.
    """
    entry = PROVIDERS.get(provider)
    if entry is None:
        return BACKENDS.load(provider)
    missing = missing_modules(entry.modules)
    if missing:
        raise ConfigError(
            f"the {provider} backend needs {', '.join(missing)}, not installed: "
            f"{_install_hint(entry)}"
        )
    try:
        return BACKENDS.load(provider)
    except ImportError as exc:
        raise ConfigError(
            f"the {provider} backend needs {exc.name or 'a missing library'}: "
            f"{_install_hint(entry)}"
        ) from exc


def _install_hint(entry: Provider) -> str:
    return f"pip install 'rulebench[{entry.extra}]'" if entry.extra else "pip install rulebench"


def create_model(spec: str | None = None, options: BackendOptions | None = None) -> Model:
    """Build the model a spec names; the embedded default when `spec` is None (not "")."""
    provider, name = parse_spec(resolve_spec(spec))
    factory = load_backend(provider)
    if not BACKENDS.entry(provider).is_plugin:
        return factory(name, options or BackendOptions())
    return _create_plugin_model(provider, factory, name, options or BackendOptions())


def _create_plugin_model(
    provider: str, factory: ModelFactory, name: str, options: BackendOptions
) -> Model:
    """A plugin's model, checked: a factory that fails or returns no `Model` is one line.

    Only the factory's result shows whether a backend plugin is right (importing it finds a
    callable), so it is checked here as a task plugin's definition is checked on import.
    """
    entry = BACKENDS.entry(provider)
    where = f"{BACKENDS.describe(entry)}, building '{name}'"
    try:
        model = factory(name, options)
    except RulebenchError:
        raise  # the plugin's own one-line error (a bad -M setting, a refused key)
    except BaseException as exc:  # foreign code: a failure (sys.exit too) is one line
        if is_stop(exc):
            raise
        raise ConfigError(
            f"{where}: {describe_failure(exc)}; fix or uninstall {entry.package}"
        ) from exc
    problem = _not_a_model(model)
    if problem is not None:
        raise ConfigError(
            f"{where}: its factory returned {problem}; fix or uninstall {entry.package}"
        )
    return model


def _not_a_model(found: object) -> str | None:
    """How `found` misses the `Model` protocol, or None when it meets it."""
    try:
        # Python 3.11's protocol check reads the `info` property, which may raise.
        if not isinstance(found, Model):
            return f"a {type(found).__name__}, not a Model (info, generate and aclose)"
        info = found.info
    except Exception as exc:  # foreign code
        return f"a {type(found).__name__} whose info failed: {describe_failure(exc)}"
    if not isinstance(info, ModelInfo):
        return f"a {type(found).__name__} whose info is a {type(info).__name__}, not a ModelInfo"
    return None
