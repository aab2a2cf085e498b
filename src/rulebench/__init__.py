"""rulebench: measure and improve how large language models follow rules."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("rulebench")
except PackageNotFoundError:  # running from a source tree without an install
    __version__ = "0.0.0+unknown"
