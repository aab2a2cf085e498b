"""`prepare_inferential`: the options of `run inferential` turned into a config.

The command line and the Python API both call it, so what it decides (the toggles' tuples,
--grid paper against the settings it fixes, the repeatable choices) is tested here without a
command line.
"""

from pathlib import Path

import pytest

from rulebench.core.errors import ConfigError
from rulebench.inferential.run_options import (
    InferentialOptions,
    prepare_inferential,
    toggle_default,
)
from rulebench.inferential.settings import Grid
from rulebench.inferential.task import InferentialConfig


def test_no_option_is_the_configs_defaults() -> None:
    config = prepare_inferential(InferentialOptions())
    assert config == InferentialConfig(per_group=None, heldout_by=None)
    assert "tasks" not in config.model_fields_set  # unnamed: fitted to the options at run time
    assert toggle_default("cot") == "off" and toggle_default("counterfactual") == "off"


def test_the_options_fill_the_config_and_its_grid(tmp_path: Path) -> None:
    options = InferentialOptions(
        tasks=("kinship",),
        per_group=3,
        quantities=("golden", "all"),
        forms=("fol",),
        cot="both",
        counterfactual="on",
        shots=0,
        layout="shared",
        cite_rule=True,
        repeats=2,
        data_root=tmp_path,
        seed=7,
    )
    config = prepare_inferential(options)
    assert config.grid == Grid(
        quantities=("golden", "all"),
        forms=("fol",),
        cot=(False, True),
        counterfactual=(True,),
        layout="shared",
        cite_rule=True,
        seed=7,
    )
    assert (config.tasks, config.per_group, config.repeats, config.seed) == (("kinship",), 3, 2, 7)
    assert config.data_root == str(tmp_path.resolve()) and config.design == "grid"


def test_the_paper_grid_refuses_every_setting_it_fixes_even_a_default_value() -> None:
    assert prepare_inferential(InferentialOptions(grid="paper", layout="shared")).design == "paper"
    options = InferentialOptions(grid="paper", forms=("nl",), shots=0, cot="off")
    with pytest.raises(ConfigError, match=r"^grid paper sets .*; drop form, cot, shots \("):
        prepare_inferential(options)
    # The CLI's label spells each field as its option.
    with pytest.raises(ConfigError, match=r"drop --form, --cot, --shots \(or leave out --grid"):
        prepare_inferential(options, lambda field: "--" + field.replace("_", "-"))


def test_a_repeatable_choice_outside_its_values_is_one_line() -> None:
    with pytest.raises(ConfigError, match=r"^quantity 'some' is not one of none, golden, few, all"):
        prepare_inferential(InferentialOptions(quantities=("few", "some")))
    with pytest.raises(ConfigError, match=r"^form 'xml' is not one of nl, fol"):
        prepare_inferential(InferentialOptions(forms=("xml",)))


def test_a_value_the_config_refuses_is_named_as_the_caller_spells_it() -> None:
    options = InferentialOptions(upstream=Path("clone"))  # read only with upstream prompts
    with pytest.raises(ConfigError, match=r"--upstream .* is read only with --prompts upstream"):
        prepare_inferential(options)
