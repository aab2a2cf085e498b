"""A GCG config from what a user gives: a preset, a nanogcg-style options file, single options.

The one place these are merged, so `rulebench attack gcg` and a Python caller get the same
config from the same settings: the preset's values, then the file's, then each option given.
"""

import json
from pathlib import Path

from rulebench.attack.gcg.config import GcgConfig, Preset
from rulebench.core.errors import ConfigError
from rulebench.core.validation import validate_into


def read_gcg_file(path: Path) -> dict[str, object]:
    """A nanogcg-style options file: one JSON object (names are checked by GcgConfig).

    Raises:
        ConfigError: the file cannot be read or holds something else.
    """
    try:
        loaded = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ConfigError(f"--gcg-config {path}: cannot read it ({exc})") from None
    if not isinstance(loaded, dict):
        raise ConfigError(f"--gcg-config {path}: expected a JSON object of GCG options")
    return loaded


def gcg_settings(
    preset: Preset = "quick",
    file: Path | None = None,
    *,
    suffix_length: int | None = None,
    **given: object,
) -> GcgConfig:
    """The preset, then the file's options, then those `given` that are not None.

    `suffix_length` N starts from N x's (as nanogcg's default suffix does); an explicit
    `optim_str_init` wins over it.

    Raises:
        ConfigError: an unreadable file, an unknown option or a value out of range.
    """
    values: dict[str, object] = GcgConfig.preset(preset).model_dump()
    if file is not None:
        values |= read_gcg_file(file)  # unknown names fail in GcgConfig, with their name
    if suffix_length is not None:
        values["optim_str_init"] = " ".join(["x"] * suffix_length)
    values |= {name: value for name, value in given.items() if value is not None}
    return validate_into(GcgConfig, values, "gcg options")
