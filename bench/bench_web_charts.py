"""bench_web.py's charts case: a big run's charts page beside its run page (issue 36's target).

Each page is timed cold (the app's kept sums and aggregates dropped first, as after a restart)
and warm (read again), N times each; prints the medians and the charts page's ratio to the run
page's. Target: charts within 2x of the run page.
"""

import statistics
import time

from fastapi.testclient import TestClient

from rulebench.web.explorer import run_memo, run_tallies


def forget() -> None:
    """Drop what the app keeps of runs, as a restarted server has nothing kept."""
    with run_memo._lock, run_tallies._lock:  # a bench, not the app: it may reach in
        run_memo._kept.clear()
        run_tallies._kept.clear()


def seconds(client: TestClient, url: str, cold: bool) -> float:
    if cold:
        forget()
    started = time.perf_counter()
    page = client.get(url)
    elapsed = time.perf_counter() - started
    page.raise_for_status()
    if url.endswith("/charts") and "<svg" not in page.text:
        raise SystemExit(f"{url} drew no chart: its time would be no figure")
    return elapsed


def charts_rows(client: TestClient, run_id: str, repeats: int) -> list[tuple[str, ...]]:
    """The run page and the charts page, cold and warm: medians of `repeats`, and the ratio."""
    pages = {"run page": f"/runs/{run_id}", "charts page": f"/runs/{run_id}/charts"}
    rows: list[tuple[str, ...]] = [
        ("page", f"cold, median of {repeats} s", f"warm, median of {repeats} s")
    ]
    medians: dict[str, tuple[float, float]] = {}
    for name, url in pages.items():
        cold = statistics.median(seconds(client, url, True) for _ in range(repeats))
        seconds(client, url, False)
        warm = statistics.median(seconds(client, url, False) for _ in range(repeats))
        medians[name] = (cold, warm)
        rows.append((name, f"{cold:.3f}", f"{warm:.3f}"))
    (run_cold, run_warm), (charts_cold, charts_warm) = medians.values()
    rows.append(
        ("charts / run page", f"{charts_cold / run_cold:.2f}x", f"{charts_warm / run_warm:.2f}x")
    )
    return rows
