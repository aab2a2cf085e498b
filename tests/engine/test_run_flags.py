"""Run settings as a front end spells them, read into `RunSettings` one way for every caller."""

import pytest

from rulebench.core.errors import ConfigError
from rulebench.core.messages import ReasoningTags
from rulebench.core.shards import Shard
from rulebench.engine.run_flags import (
    ReasoningFlags,
    SpelledSettings,
    join_base_urls,
    parse_model_args,
)
from rulebench.engine.run_settings import RunSettings


def test_the_spelled_settings_read_into_run_settings() -> None:
    spelled = SpelledSettings(
        model_args=["n_ctx=8192", "name = a=b"],
        seed=7,
        use_cache=False,
        shard="auto/4",
        reasoning=ReasoningFlags(thinking="off", reasoning_tags="[T] [/T]"),
    )
    settings = spelled.settings({"JOB_COMPLETION_INDEX": "2"})
    assert settings.model_args == {"n_ctx": "8192", "name": " a=b"}
    assert settings.sampling_seed == 7  # sampling follows the data seed unless told apart
    assert settings.use_cache is False and settings.shard == Shard(index=3, count=4)
    assert settings.reasoning.thinking is False
    assert settings.reasoning.tags == ReasoningTags(start="[T]", end="[/T]")
    assert SpelledSettings(seed=7, sampling_seed=1).settings({}).sampling_seed == 1
    assert SpelledSettings().settings({}) == RunSettings()


@pytest.mark.parametrize(
    ("spelled", "says"),
    [
        (SpelledSettings(model_args=["=x"]), "--model-arg '=x' is not key=value"),
        (SpelledSettings(reasoning=ReasoningFlags(reasoning_effort="max")), "choose one of"),
        (SpelledSettings(reasoning=ReasoningFlags(reasoning_tags="<t>")), "give the opening"),
    ],
)
def test_a_bad_spelling_is_one_line_naming_its_option(spelled: SpelledSettings, says: str) -> None:
    with pytest.raises(ConfigError, match=says):
        spelled.settings({})


def test_repeated_urls_join_and_an_empty_one_is_refused() -> None:
    assert join_base_urls(["http://a/v1 ", "http://b/v1"]) == "http://a/v1,http://b/v1"
    assert join_base_urls(None) is None and parse_model_args(None) == {}
    with pytest.raises(ConfigError, match="an empty value"):
        join_base_urls(["http://a/v1", " "])
