"""What a front end says about a data folder `train data` wrote: its splits, rules and hash."""

from pathlib import Path

from rulebench.train.data import DataManifest


def written_lines(manifest: DataManifest, folder: Path) -> list[str]:
    """The folder's counts: per split and held-out rules (StringGame), or per source."""
    if manifest.in_domain is not None:
        return _in_domain_lines(manifest, folder)
    lines = [f"IRFT data in {folder}"]
    lines += [f"  {split:8} {count:>7} examples" for split, count in manifest.counts.items()]
    heldout_by = manifest.config.heldout_by if manifest.config else "rules"
    left_out = len(manifest.left_out_rules)
    lines.append(
        f"  rules: {len(manifest.train_rules)} for training, "
        f"{len(manifest.heldout_rules)} held out by {heldout_by}"
        + (f", {left_out} left out" if left_out else "")
        + f"; data hash {manifest.data_hash[:16]}"
    )
    return lines


def _in_domain_lines(manifest: DataManifest, folder: Path) -> list[str]:
    assert manifest.in_domain is not None  # the caller's test
    lines = [f"IRFT in-domain data in {folder}"]
    for source, count in manifest.in_domain.sources.items():
        lines.append(
            f"  {source:8} {count.examples:>7} examples; {count.dropped} of "
            f"{count.samples} train samples dropped as test overlap"
        )
    total = manifest.counts["train"]
    lines.append(f"  train    {total:>7} examples; data hash {manifest.data_hash[:16]}")
    return lines
