"""An example rulebench plugin: the recycling task and the Signature scenario.

`CASES` is the folder of Signature's test cases, for `rulebench run scenarios --suite`.
"""

from pathlib import Path

CASES = Path(__file__).parent / "cases" / "basic"
"""Test cases of the Signature scenario, one JSONL file per behavior (RuLES' layout)."""
