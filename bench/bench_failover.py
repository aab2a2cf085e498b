"""Failover latency: a request whose first replica answers 500 while another is healthy.

Starts two in-process mock OpenAI servers, one failing every request with 500, and sends N
requests one after another to a model listing both (initial backoff 5 s). Prints the best and
median latency of the requests that hit the failing replica first: the retry should go to the
healthy replica at once, so they take milliseconds, not the 5 s backoff.
Usage: python bench/bench_failover.py [--requests 20] [--backoff-s 5]
"""

import argparse
import asyncio
import logging
import statistics

from rulebench.core.messages import GenerateConfig, Message
from rulebench.models.base import BackendOptions
from rulebench.models.openai.backend import OpenAIModel
from rulebench.testing.mock_server import MockOpenAIServer, MockServerConfig


async def latencies(requests: int, backoff_s: float) -> list[float]:
    """Latency of each request that went to the failing replica first, then succeeded."""
    failing_config = MockServerConfig(fault_rate=1.0, fault_kinds=("500",))
    async with MockOpenAIServer(failing_config) as failing, MockOpenAIServer() as healthy:
        settings = {"initial_backoff_s": str(backoff_s), "max_backoff_s": str(2 * backoff_s)}
        # A cool-down shorter than a request keeps the failing replica in the choice.
        settings["cooldown_s"] = "0.001"
        options = BackendOptions(base_url=f"{failing.url},{healthy.url}", args=settings)
        model = OpenAIModel.create_compatible("mock/echo", options)
        found = []
        for index in range(requests):
            before = len(failing.requests)
            message = [Message(role="user", content=f"q{index}")]
            completion = await model.generate(message, GenerateConfig())
            if len(failing.requests) > before:
                found.append(completion.latency_s)
        await model.aclose()
    return found


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--requests", type=int, default=20)
    parser.add_argument("--backoff-s", type=float, default=5.0)
    args = parser.parse_args()
    # Each failover logs a warning that the replica was taken out; the figures say enough.
    logging.getLogger("rulebench.models.openai.endpoint_pool").setLevel(logging.ERROR)
    found = asyncio.run(latencies(args.requests, args.backoff_s))
    if not found:
        print("no request went to the failing replica first: raise --requests")
        return
    print(
        f"{len(found)} of {args.requests} requests failed over (backoff {args.backoff_s:g} s): "
        f"best {min(found):.3f} s, median {statistics.median(found):.3f} s, "
        f"worst {max(found):.3f} s"
    )


if __name__ == "__main__":
    main()
