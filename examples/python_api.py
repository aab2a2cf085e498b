"""rulebench from Python: run a task, read its results, resume, as in a notebook.

Runs offline on the scripted model (swap in "openai/gpt-4o-mini" or the embedded default).
Usage: python examples/python_api.py [STORE]   (default: a temporary file)
"""

import sys
import tempfile
from pathlib import Path

import rulebench
from rulebench.inferential.settings import Grid
from rulebench.inferential.task import InferentialConfig

store = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(tempfile.mkdtemp()) / "results.sqlite"

# A typed config (or a plain dict): kinship questions, golden and few rules.
config = InferentialConfig(tasks=("kinship",), per_group=5, grid=Grid(quantities=("golden", "few")))
report = rulebench.run("inferential", "scripted/echo", config=config, store=store)
print(f"run {report.run.id}: {report.completed_now} items, status {report.run.status}")

# The same run again is answered from the response cache (no model call).
again = rulebench.run("inferential", "scripted/echo", config=config, store=store)
print(f"again: {again.cache_hits_now} of {again.completed_now} replies from the cache")
# rulebench.resume(run_id, store=store) finishes an interrupted or failed run the same way.

rows = rulebench.results(report.run.id, store=store)
print(f"{len(rows)} rows; first item's setting: {rows[0]['metadata']['setting']}")

frame = rulebench.results_frame(report.run.id, store=store)
print(frame[["item_id", "answer", "score"]].head(3).to_string(index=False))

built = rulebench.build_report(report.run.id, store=store, folder=store.parent / "report")
print(f"report written to {built.path}; {len(built.warnings)} warnings")
