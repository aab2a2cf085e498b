"""An IRFT data folder: the splits as JSONL and as a `datasets` folder, and a manifest.

Layout of a folder written by `write_dataset`:

    manifest.json      the DataConfig, counts, the held-out rule ids and a hash of the data
    train.jsonl        training examples (training rules only)
    test.jsonl         in-distribution test: unseen strings, training rules
    heldout.jsonl      out-of-distribution test: golden rules not in training (neither golden
                       nor noise); with the default split by rules their conditions and
                       outputs still occur in training rules, by composition they do not
    dataset/           the same splits as a datasets.DatasetDict (save_to_disk), for trl

JSONL is what a person or another tool reads; the `datasets` folder is what the trainer loads
without re-parsing. The manifest's hash pins the data a training run used.

An in-domain folder (`write_in_domain`) holds the train split only, and its manifest an
`in_domain` section in place of the StringGame `config`.
"""

import hashlib
import json
import shutil
from collections.abc import Callable
from pathlib import Path

from pydantic import BaseModel, ConfigDict, JsonValue, ValidationError

from rulebench.core.errors import ConfigError, DataError
from rulebench.train.examples import (
    SPLITS,
    DataConfig,
    Split,
    TrainingExample,
    build_examples,
    rule_library,
    rule_split,
)
from rulebench.train.in_domain import InDomainConfig, InDomainSummary, build_in_domain
from rulebench.train.star_manifest import StarSection

MANIFEST = "manifest.json"
DATASET_FOLDER = "dataset"
FORMAT_VERSION = 1


class DataManifest(BaseModel):
    """What a data folder holds; written last, so a folder with one is complete."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    format_version: int = FORMAT_VERSION
    config: DataConfig | None = None
    """How StringGame data was built; None for in-domain data (see `in_domain`)."""
    counts: dict[Split, int]
    train_rules: tuple[str, ...]
    """StringGame rule ids in training; empty for in-domain data (rules differ per task)."""
    heldout_rules: tuple[str, ...]
    left_out_rules: tuple[str, ...] = ()
    """Rules in neither training nor the held-out test (the composition split's mixed rules)."""
    data_hash: str
    """sha256 over the JSONL files: identical data, identical hash."""
    in_domain: InDomainSummary | None = None
    """How in-domain data was built, its sources and the test-overlap drops; None for
    StringGame. Optional and left out of StringGame manifests, so folders written before it
    existed read as they are, with no change of format version."""
    star: StarSection | None = None
    """Set on a folder `rulebench train star` wrote: its train completions are a teacher's
    kept reasoning or the plain target. Optional and left out otherwise, like `in_domain`."""


def jsonl_path(folder: Path, split: Split) -> Path:
    """Where a split's JSONL file lives in a data folder."""
    return folder / f"{split}.jsonl"


def write_dataset(
    config: DataConfig,
    folder: Path,
    overwrite: bool = False,
    on_example: Callable[[TrainingExample], None] | None = None,
) -> DataManifest:
    """Build every split, check it, and write the folder; return its manifest.

    Everything is built (and so checked by the oracle) before the first file is written, so a
    failure leaves no half-written folder behind.

    Raises:
        ConfigError: the folder holds files and `overwrite` is not set, or cannot be written.
    """
    claim_folder(folder, overwrite)
    examples = build_examples(config, on_example)
    library = rule_library()
    split = rule_split(config)
    records = {split: [e.to_record() for e in rows] for split, rows in examples.items()}
    return write_folder(
        folder,
        records,
        lambda digest: DataManifest(
            config=config,
            counts={split: len(rows) for split, rows in examples.items()},
            train_rules=tuple(sorted(set(library) - split.heldout - split.left_out)),
            heldout_rules=tuple(sorted(split.heldout)),
            left_out_rules=tuple(sorted(split.left_out)),
            data_hash=digest,
        ),
    )


def write_in_domain(
    config: InDomainConfig,
    folder: Path,
    overwrite: bool = False,
    on_example: Callable[[TrainingExample], None] | None = None,
) -> DataManifest:
    """Build in-domain examples (train split only), check them, write the folder.

    Raises:
        ConfigError: as `write_dataset`, or no source to build from.
        DataError: an official file is missing or malformed, or a check fails.
    """
    claim_folder(folder, overwrite)
    examples, sources = build_in_domain(config, on_example)
    if not examples:
        raise ConfigError("in-domain data: no example left to write (every sample was dropped)")
    return write_folder(
        folder,
        {"train": [example.to_record() for example in examples]},
        lambda digest: DataManifest(
            counts={"train": len(examples)},
            train_rules=(),
            heldout_rules=(),
            data_hash=digest,
            in_domain=InDomainSummary(config=config, sources=sources),
        ),
    )


def write_folder(
    folder: Path,
    records: dict[Split, list[dict[str, JsonValue]]],
    make_manifest: Callable[[str], DataManifest],
) -> DataManifest:
    """Write the JSONL files, the datasets folder and, last, the manifest made from the hash."""
    try:
        digest = _write_jsonl(folder, records)
        _write_datasets(folder / DATASET_FOLDER, records)
        manifest = make_manifest(digest)
        content = manifest.model_dump(mode="json")
        for section in ("config", "in_domain", "star"):  # those a folder lacks: StringGame
            if content[section] is None:  # manifests stay as they were before `in_domain`
                del content[section]
        text = json.dumps(content, indent=2, ensure_ascii=False)
        (folder / MANIFEST).write_text(text + "\n", encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"cannot write the data folder {folder}: {exc.strerror}") from None
    return manifest


def claim_folder(folder: Path, overwrite: bool) -> None:
    """Make `folder` an empty folder to write into, refusing to replace what is not ours.

    Raises:
        ConfigError: a file is there, or a non-empty folder and no `overwrite`, or a non-empty
            folder without a manifest (someone else's files), or it cannot be created.
    """
    if folder.exists() and not folder.is_dir():
        raise ConfigError(f"{folder} is a file, not a folder for the data set")
    if folder.is_dir() and any(folder.iterdir()):
        if not overwrite:
            raise ConfigError(f"{folder} is not empty: pick a new folder or pass --overwrite")
        if not (folder / MANIFEST).is_file():
            raise ConfigError(
                f"{folder} holds files but no {MANIFEST}: not a data folder, left as it is"
            )
        shutil.rmtree(folder)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ConfigError(f"cannot create the data folder {folder}: {exc.strerror}") from None


def _write_jsonl(folder: Path, records: dict[Split, list[dict[str, JsonValue]]]) -> str:
    """Write one JSONL file per split; return the sha256 of their bytes in split order."""
    digest = hashlib.sha256()
    for split in SPLITS:
        if split not in records:
            continue
        text = "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in records[split])
        data = text.encode("utf-8")
        digest.update(split.encode() + b"\0" + data)
        jsonl_path(folder, split).write_bytes(data)
    return digest.hexdigest()


def _write_datasets(target: Path, records: dict[Split, list[dict[str, JsonValue]]]) -> None:
    from datasets import Dataset, DatasetDict
    from datasets.utils import logging as datasets_logging

    folder = DatasetDict({split: Dataset.from_list(rows) for split, rows in records.items()})
    # datasets draws its own tqdm bars on stderr; only the CLI draws progress.
    was_enabled = datasets_logging.is_progress_bar_enabled()
    datasets_logging.disable_progress_bar()
    try:
        folder.save_to_disk(str(target))
    finally:
        if was_enabled:
            datasets_logging.enable_progress_bar()


def read_manifest(folder: Path) -> DataManifest:
    """The manifest of a data folder.

    Raises:
        DataError: the folder is no complete data folder (no manifest, or a malformed one).
    """
    path = folder / MANIFEST
    if not path.is_file():
        raise DataError(
            f"{folder}: no {MANIFEST}: not an IRFT data folder (make one with "
            "`rulebench train data -o FOLDER`)"
        )
    try:
        return DataManifest.model_validate_json(path.read_text())
    except (OSError, ValidationError) as exc:
        raise DataError(f"{path}: not a valid manifest: {str(exc).splitlines()[0]}") from None


def read_examples(folder: Path, split: Split) -> list[TrainingExample]:
    """The examples of one split, read back from its JSONL file."""
    path = jsonl_path(folder, split)
    if not path.is_file():
        raise DataError(f"{folder}: no {split} split ({path.name} is missing)")
    examples = []
    for number, line in enumerate(path.read_text().splitlines(), 1):
        try:
            row = json.loads(line)
            row["prompt"] = row["prompt"][0]["content"]
            row["completion"] = row["completion"][0]["content"]
            examples.append(TrainingExample.model_validate(row))
        except (ValueError, KeyError, IndexError, TypeError) as exc:
            raise DataError(f"{path}: line {number}: {str(exc).splitlines()[0]}") from None
    return examples
