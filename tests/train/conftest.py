"""Training tests convert the embedded GGUF once per session, into a temporary cache."""

from collections.abc import Iterator
from pathlib import Path

import pytest

from rulebench.train.base_model import CACHE_ENV_VAR
from rulebench.train.data import write_dataset
from rulebench.train.examples import DataConfig


@pytest.fixture(scope="session")
def model_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A session-wide cache folder: the conversion (~20 s) happens once, never in ~/.cache."""
    folder = tmp_path_factory.mktemp("rulebench-cache")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(CACHE_ENV_VAR, str(folder))
        yield folder


@pytest.fixture(autouse=True)
def isolated_cache(
    request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Nothing a training test does may write into the user's cache."""
    if "model_cache" not in request.fixturenames:
        monkeypatch.setenv(CACHE_ENV_VAR, str(tmp_path / "cache"))


@pytest.fixture(scope="session")
def tiny_data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A few examples: enough for a handful of optimizer steps and an eval loss."""
    folder = tmp_path_factory.mktemp("irft-data") / "data"
    write_dataset(DataConfig(size=12, test_size=4, seed=7), folder)
    return folder
