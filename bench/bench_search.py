"""Full-text search on a large store: the explorer's /search on N results (default 100,000).

Writes two finished runs of N/2 synthetic results each through the store's writer (so the
index triggers run as in a live run), with prompts and replies of ~60 and ~40 words drawn
from a Zipf-like vocabulary, then prints, per query, the median over R tries of what one
search page costs: the capped count plus the first page of hits with snippets, across all
runs and within one. Also prints the write time and the time the migration takes to index
the same results when a store without the index is upgraded.
Usage: python bench/bench_search.py [--results 100000] [--repeats 7]
"""

import argparse
import itertools
import json
import random
import sqlite3
import statistics
import tempfile
import time
from functools import cache, partial
from pathlib import Path

from bench_common import median_s, print_table
from rulebench.core.items import ItemResult, Outcome
from rulebench.core.messages import Message
from rulebench.engine.store.database import Store
from rulebench.testing.older_store import drop_search_index

PAGE_SIZE = 50


def vocabulary(rng: random.Random, size: int = 5000) -> list[str]:
    """Made-up words, a few of them common and most rare once drawn by `zipf_words`."""
    syllables = ["ka", "lo", "mi", "ne", "ru", "sa", "to", "vi", "ze", "qu", "an", "or"]
    words = {"".join(rng.choices(syllables, k=rng.randint(2, 4))) for _ in range(size * 2)}
    return sorted(words)[:size]


def zipf_words(rng: random.Random, words: list[str], count: int) -> str:
    """`count` words, word k drawn with weight 1/(k+1)."""
    return " ".join(rng.choices(words, cum_weights=_cumulative(len(words)), k=count))


@cache
def _cumulative(size: int) -> list[float]:
    return list(itertools.accumulate(1 / (k + 1) for k in range(size)))


def result(index: int, rng: random.Random, words: list[str]) -> ItemResult:
    """One synthetic result; every 20th an error (its prompt is still searchable)."""
    prompt = zipf_words(rng, words, 60)
    messages = (
        Message(role="system", content="Follow the rules below."),
        Message(role="user", content=f"case {index}: {prompt}"),
    )
    if index % 20 == 19:
        return ItemResult(item_id=f"i-{index:06d}", messages=messages, error="503")
    reply = zipf_words(rng, words, 40)
    return ItemResult(
        item_id=f"i-{index:06d}",
        messages=messages,
        reply=reply,
        outcome=Outcome(answer=reply.split()[-1], score=float(index % 2)),
    )


def write_store(path: Path, count: int) -> tuple[list[str], list[str], float]:
    """Two runs sharing `count` results; their ids, the vocabulary and the write seconds."""
    rng = random.Random(0)
    words = vocabulary(rng)
    started = time.perf_counter()
    run_ids = []
    with Store(path) as db:
        for half in range(2):
            run = db.create_run("inferential", f"scripted/synthetic-{half}", {})
            writer = db.writer()
            for index in range(half * count // 2, (half + 1) * count // 2):
                writer.put_result(run.id, result(index, rng, words))
            writer.close()
            db.finish_run(run.id, "completed", {})
            run_ids.append(run.id)
    return run_ids, words, time.perf_counter() - started


def backfill_seconds(path: Path) -> float:
    """Seconds the search step takes on a copy of the store made as if before that step."""
    copy = path.with_name("unindexed.sqlite")
    source = sqlite3.connect(path)
    source.execute(f"VACUUM INTO '{copy}'")
    source.close()
    drop_search_index(copy)
    started = time.perf_counter()
    Store(copy).close()  # applies the missing step
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--results", type=int, default=100_000)
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "search.sqlite"
        run_ids, words, write_s = write_store(path, args.results)
        queries = {
            "common word": words[0],
            "rare word": words[-1],
            "two words": f"{words[3]} {words[40]}",
            "phrase": f'"case {args.results // 3}"',
            "prefix": f"{words[10][:3]}*",
            "in the reply": f"reply:{words[7]}",
            "an item id": f'item_id:"i-{args.results - 5:06d}"',
        }
        rows = [("query", "text", "matches", "all runs s", "one run s")]
        with Store(path, readonly=True) as db:
            search = db.searcher()

            def page(text: str, run_id: str | None) -> int:
                found = search.count(text, run_id)
                search.hits(text, run_id, 0, PAGE_SIZE)
                return found

            medians = []
            for name, text in queries.items():
                across = median_s(partial(page, text, None), args.repeats)
                within = median_s(partial(page, text, run_ids[1]), args.repeats)
                medians += [across, within]
                shown = min(search.count(text, None), 10_001)
                rows.append((name, text, f"{shown:,}", f"{across:.4f}", f"{within:.4f}"))
        backfill_s = backfill_seconds(path)
        print(f"{args.results:,} results in 2 runs; wrote them in {write_s:.1f} s")
        print_table(rows)
        print(
            f"median search page (count + first {PAGE_SIZE} hits) over all queries: "
            f"{statistics.median(medians):.4f} s, slowest {max(medians):.4f} s"
        )
        print(f"migration indexing the same results in an older store: {backfill_s:.1f} s")
        print(json.dumps({"results": args.results, "median_s": statistics.median(medians)}))


if __name__ == "__main__":
    main()
