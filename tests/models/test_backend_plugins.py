"""Backend plugins: a factory that fails or returns no Model is one line naming the plugin."""

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from rulebench.core.errors import ConfigError
from rulebench.models.base import BackendOptions
from rulebench.models.registry import MODELS_GROUP, create_model
from rulebench.models.scripted import ScriptedModel

from tests.command import assert_one_line_error, rulebench
from tests.installed import install_dist

BACKENDS_MODULE = """
from rulebench.models.scripted import ScriptedModel


class NoInfo:
    info = "shouty"

    async def generate(self, messages, config):
        raise NotImplementedError

    async def aclose(self):
        return None


def good(name, options):
    return ScriptedModel.create("echo", options)


def text(name, options):
    return "not a model"


def no_info(name, options):
    return NoInfo()


def fails(name, options):
    raise ValueError(f"no such voice: {name}")


def exits(name, options):
    raise SystemExit(3)
"""
PROVIDERS = ("good", "text", "no-info", "fails", "exits")


@pytest.fixture
def site(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, installed_plugins: None
) -> Iterator[Path]:
    entries = {name: f"shout_backends:{name.replace('-', '_')}" for name in PROVIDERS}
    install_dist(tmp_path, "shout-backend", MODELS_GROUP, entries,
                 {"shout_backends": BACKENDS_MODULE})  # fmt: skip
    monkeypatch.syspath_prepend(str(tmp_path))
    yield tmp_path
    sys.modules.pop("shout_backends", None)


def test_a_plugin_factory_returning_a_model_builds_it(site: Path) -> None:
    assert isinstance(create_model("good/loud", BackendOptions()), ScriptedModel)


@pytest.mark.parametrize(
    ("provider", "why"),
    [
        ("text", "its factory returned a str, not a Model"),
        ("no-info", "its factory returned a NoInfo whose info is a str, not a ModelInfo"),
        ("fails", "ValueError: no such voice: loud"),
        ("exits", "it called sys.exit(3)"),
    ],
)
def test_a_plugin_factory_that_gives_no_model_is_one_line_naming_it(
    site: Path, provider: str, why: str
) -> None:
    with pytest.raises(ConfigError) as caught:
        create_model(f"{provider}/loud")
    message = str(caught.value)
    assert f"model provider plugin '{provider}'" in message, message
    assert "from shout-backend" in message and "'loud'" in message, message
    assert why in message
    assert "\n" not in message


@pytest.mark.subprocess
def test_the_cli_names_the_plugin_in_one_line(site: Path, tmp_path: Path) -> None:
    path = os.pathsep.join(filter(None, [str(site), os.environ.get("PYTHONPATH")]))
    env = {**os.environ, "PYTHONPATH": path, "RULEBENCH_STORE": str(tmp_path / "s.db")}
    result = rulebench("run", "smoke", "-m", "text/loud", env=env)
    assert_one_line_error(result, "model provider plugin 'text'", "shout-backend", "not a Model")
