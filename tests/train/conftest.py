"""IRFT test data, built once per session."""

from pathlib import Path

import pytest

from rulebench.train.data import write_dataset
from rulebench.train.examples import DataConfig


@pytest.fixture(scope="session")
def tiny_data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A few examples: enough for a handful of optimizer steps and an eval loss."""
    folder = tmp_path_factory.mktemp("irft-data") / "data"
    write_dataset(DataConfig(limit=12, per_group=4, seed=7), folder)
    return folder
