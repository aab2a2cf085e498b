"""Seconds to judge a looping reply (one phrase repeated) as every task in both modes.

A small model that loops writes exactly the replies that once made extraction quadratic; this
prints how long each looping phrase takes at two lengths, so a regression shows as a jump.

    python bench/bench_extraction.py [--length 40000]
"""

import argparse
import sys
from pathlib import Path

# The looping phrases and the timing live with the test that guards the growth rate.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench_common import print_table

from tests.inferential.test_extraction_speed import LOOPS, best_seconds, looping_reply


def main() -> None:
    """Print the judging time of every looping phrase at a tenth of --length and at --length."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--length", type=int, default=40_000, help="Characters of the long reply.")
    args = parser.parse_args()
    short_length = args.length // 10
    rows = [("phrase", f"{short_length:,} chars (s)", f"{args.length:,} chars (s)", "growth")]
    for phrase in LOOPS:
        short = best_seconds(looping_reply(phrase, short_length))
        long = best_seconds(looping_reply(phrase, args.length))
        rows.append(
            (repr(phrase), f"{short:.4f}", f"{long:.4f}", f"{long / max(short, 1e-6):.1f}x")
        )
    print_table(rows)


if __name__ == "__main__":
    main()
