"""The explorer's runs list on a store of many runs: the page, and the run labels alone.

Writes N finished runs without results (two tasks; each run's config differs from the
others of its task in a seed and a temperature, as a sweep leaves them), then prints the
median over R tries of one GET / (the newest 50 of all N runs, labelled among all N), of one
sorted by cost (the report's token totals for every run), and of
`config_diff.run_labels` over the N runs. Labels were quadratic in N before they grouped
runs by task: a jump between the sizes shows such a regression.
Usage: python bench/bench_runs_list.py [--runs 1000,10000] [--repeats 3]
"""

import argparse
import json
import tempfile
from functools import partial
from pathlib import Path

from fastapi.testclient import TestClient
from pydantic import JsonValue

from bench_common import median_s, print_table
from rulebench.engine.store.database import Store
from rulebench.web.app import create_app
from rulebench.web.explorer.config_diff import run_labels


def write_runs(path: Path, count: int) -> None:
    """`count` finished runs of two tasks, configs differing in seed and temperature."""
    with Store(path) as db:
        for index in range(count):
            config: dict[str, JsonValue] = {
                "seed": index,
                "generate": {"temperature": index % 5 / 10, "max_tokens": 256},
                "limit": 100,
            }
            task = "judge" if index % 2 else "loadtest"
            run = db.create_run(task, "scripted/echo", config)
            db.finish_run(run.id, "completed", {})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", default="1000,10000", help="comma-separated store sizes")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    rows = [("runs", "GET / s", "GET /?sort=cost s", "run_labels s")]
    figures = {}
    for count in (int(size) for size in args.runs.split(",")):
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "runs.sqlite"
            write_runs(path, count)
            with Store(path, readonly=True) as db:
                runs = db.list_runs(count)
            with TestClient(create_app(path), base_url="http://127.0.0.1:8765") as client:

                def page(sort: str | None = None) -> None:
                    assert client.get("/", params={"sort": sort} if sort else {}).is_success

                page_s = median_s(page, args.repeats)
                cost_s = median_s(lambda: page("cost"), args.repeats)
            labels_s = median_s(partial(run_labels, runs), args.repeats)
        rows.append((f"{count:,}", f"{page_s:.3f}", f"{cost_s:.3f}", f"{labels_s:.3f}"))
        figures[count] = {"page_s": page_s, "cost_sort_s": cost_s, "labels_s": labels_s}
    print_table(rows)
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
