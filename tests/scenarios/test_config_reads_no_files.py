"""A scenarios config reads no files: a clone named by its folder is read before validation.

`ScenarioConfig.load_inputs` (called once where a caller's fields enter: the Python API, an
experiment file) turns a folder into its record; the validators only check records, so a
stored run validates without touching the clone.
"""

from pathlib import Path

import pytest
from pydantic import JsonValue

from rulebench.core.errors import ConfigError
from rulebench.scenarios.config import ScenarioConfig
from rulebench.scenarios.protocol import Protocol
from rulebench.scenarios.upstream import text
from rulebench.scenarios.upstream.text import clone_record

from tests.scenarios.upstream_fixture import build_clone


def test_a_folder_is_refused_without_being_read(tmp_path: Path) -> None:
    missing = tmp_path / "no-clone-here"  # reading it would fail with another message
    with pytest.raises(ConfigError, match="is a folder, not its record"):
        Protocol(prompts="upstream", upstream=str(missing))
    with pytest.raises(ConfigError, match="is a folder, not its record"):
        ScenarioConfig(upstream=missing)


def test_load_inputs_reads_each_clone_folder_into_its_record(tmp_path: Path) -> None:
    folder = build_clone(tmp_path / "clone")
    fields: dict[str, JsonValue] = {
        "protocol": {"prompts": "upstream", "upstream": str(folder)},
        "upstream": str(folder),
    }
    read = ScenarioConfig.load_inputs(fields)
    record = clone_record(folder).model_dump(mode="json")
    assert read == {"protocol": {"prompts": "upstream", "upstream": record}, "upstream": record}
    assert fields["upstream"] == str(folder)  # the caller's fields are left as given
    config = ScenarioConfig.model_validate(read)
    assert config.protocol.upstream == config.upstream == clone_record(folder)


def test_a_stored_config_validates_without_reading_its_clone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = build_clone(tmp_path / "clone")
    stored = ScenarioConfig(protocol=Protocol(prompts="upstream", upstream=clone_record(folder)))
    dumped = stored.model_dump(mode="json")

    def no_reading(folder: Path) -> text.UpstreamScenarioText:
        raise AssertionError(f"read {folder}")

    monkeypatch.setattr(text, "load_text", no_reading)
    assert ScenarioConfig.load_inputs(dumped) == dumped  # records: nothing to read
    assert ScenarioConfig.model_validate(dumped) == stored
