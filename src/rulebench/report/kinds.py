"""The reports there are and the defaults of what they can be asked for.

Kept free of the store and pydantic so `rulebench --help` shows these defaults without
loading what builds a report.
"""

from pathlib import Path
from typing import Literal

ReportKind = Literal["inferential", "scenarios", "judge"]
REPORT_KINDS: tuple[ReportKind, ...] = ("inferential", "scenarios", "judge")
"""The tasks that have a report, in the order messages name them."""
ExtractMode = Literal["paper", "robust"]
DEFAULT_EXTRACT: ExtractMode = "robust"
"""How inferential answers are re-scored unless a report asks otherwise."""
DEFAULT_FOLDER = Path("rulebench-report")
"""Where an inferential report goes when no folder is named: its Markdown links plot files."""
HTML_ITEMS = 200
"""Items per run in an HTML report: enough to read examples, few enough for a light page."""
