"""A YAML experiment file without PyYAML: the error names the extra that installs it."""

import sys
import tomllib
from pathlib import Path

import pytest

from rulebench.core.errors import ConfigError
from rulebench.study.experiment import load_experiment


def test_a_yaml_file_without_pyyaml_names_the_yaml_extra(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "exp.yaml"
    path.write_text("models:\n  - spec: scripted/echo\ntasks:\n  - task: smoke\n")
    monkeypatch.setitem(sys.modules, "yaml", None)  # `import yaml` now raises ImportError
    with pytest.raises(ConfigError) as caught:
        load_experiment(path)
    assert str(caught.value) == f"{path}: YAML files need PyYAML: pip install 'rulebench[yaml]'"


def test_the_yaml_extra_declares_pyyaml() -> None:
    pyproject = Path(__file__).resolve().parents[2] / "pyproject.toml"
    extras = tomllib.loads(pyproject.read_text())["project"]["optional-dependencies"]
    assert any(req.lower().startswith("pyyaml") for req in extras["yaml"])
    (everything,) = extras["all"]
    assert "yaml" in everything.split("[")[1].rstrip("]").split(",")
