import sys

import pytest

from rulebench.core.errors import ConfigError
from rulebench.models.base import BackendOptions
from rulebench.models.registry import (
    BACKENDS,
    DEFAULT_MODEL,
    PROVIDERS,
    create_model,
    load_backend,
    parse_spec,
    resolve_spec,
)
from rulebench.models.scripted import ScriptedModel
from rulebench.plugins.foreign_code import missing_modules


def test_parse_spec_splits_provider_and_keeps_slashes_in_the_name() -> None:
    assert parse_spec("openai-api/vllm/meta-llama/Llama-3.1-8B") == (
        "openai-api",
        "vllm/meta-llama/Llama-3.1-8B",
    )
    assert parse_spec(DEFAULT_MODEL) == ("llamacpp", "SmolLM2-135M-Instruct")


def test_unknown_provider_suggests_the_closest_and_lists_all() -> None:
    with pytest.raises(ConfigError) as error:
        parse_spec("lamacpp/x.gguf")
    message = str(error.value)
    assert "Did you mean 'llamacpp'?" in message
    assert all(name in message for name in PROVIDERS)


def test_missing_name_is_explained() -> None:
    with pytest.raises(ConfigError, match="has no model name"):
        parse_spec("hf/")


def test_every_registered_backend_resolves_to_a_factory() -> None:
    for provider in PROVIDERS:
        assert callable(load_backend(provider))


def test_a_missing_backend_library_becomes_an_install_hint(monkeypatch: pytest.MonkeyPatch) -> None:
    # The backend module now raises ImportError on import.
    monkeypatch.setitem(sys.modules, "rulebench.models.hf.backend", None)
    BACKENDS.discard("hf")  # loaded by an earlier test: forget it, as a fresh process would
    with pytest.raises(ConfigError, match=r"pip install 'rulebench\[hf\]'"):
        load_backend("hf")


def test_create_model_builds_the_backend_with_its_settings() -> None:
    model = create_model("scripted/fixed", BackendOptions(args={"reply": "hi", "delay_s": "0"}))
    assert isinstance(model, ScriptedModel) and model.reply == "hi"
    with pytest.raises(ConfigError, match="-M delay_s"):
        create_model("scripted/fixed", BackendOptions(args={"delay_s": "soon"}))


@pytest.mark.parametrize(
    ("spec", "library"),
    [("hf/x", "torch"), ("hf/x", "transformers"), ("llamacpp/x.gguf", "llama_cpp")],
)
def test_a_library_the_backend_imports_late_is_checked_before_building(
    monkeypatch: pytest.MonkeyPatch, spec: str, library: str
) -> None:
    # The backend module imports without it; only building would fail (ModuleNotFoundError).
    monkeypatch.setitem(sys.modules, library, None)  # find_spec now reports it missing
    extra = spec.partition("/")[0]
    with pytest.raises(
        ConfigError, match=rf"needs {library}, not installed: pip install 'rulebench\[{extra}\]'"
    ):
        create_model(spec)


def test_missing_modules_finds_without_importing() -> None:
    assert missing_modules(("json", "rulebench_no_such_module")) == ["rulebench_no_such_module"]
    assert all(PROVIDERS[name].modules == () for name in ("openai", "openai-api", "scripted"))


@pytest.mark.parametrize("spec", ["", "  "])
def test_an_empty_spec_is_an_error_not_the_default_model(spec: str) -> None:
    for build in (parse_spec, resolve_spec, create_model):
        with pytest.raises(ConfigError, match=r"the model spec \(-m/--model.*\) is empty"):
            build(spec)


def test_no_spec_at_all_is_the_embedded_default() -> None:
    assert resolve_spec(None) == DEFAULT_MODEL
    assert resolve_spec("scripted/echo") == "scripted/echo"
