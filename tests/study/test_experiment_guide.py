"""The experiments guide's YAML file and the error it shows for a mistake are what the code does."""

import re
from pathlib import Path

import pytest

from rulebench.core.errors import ConfigError
from rulebench.study.experiment import load_experiment

GUIDE = Path(__file__).resolve().parents[2] / "docs" / "guides" / "experiments.md"


def test_the_guides_error_line_names_the_line_the_loader_names(tmp_path: Path) -> None:
    pytest.importorskip("yaml")
    text = GUIDE.read_text(encoding="utf-8")
    (block,) = re.findall(r"```yaml\n(# compare\.yaml\n.*?)```", text, re.S)
    (shown,) = re.findall(r"^error: (compare\.yaml:\d+: .*per_group.*)$", text, re.M)
    path = tmp_path / "compare.yaml"
    path.write_text(block.replace("per_group: 4", "per_group: 0", 1), encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        load_experiment(path)
    assert str(caught.value) == f"{path}{shown.removeprefix(path.name)}"
