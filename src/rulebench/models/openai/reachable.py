"""Whether an OpenAI-compatible model's servers answer at all, asked before a run starts."""

import asyncio
from collections.abc import Sequence

import aiohttp

from rulebench.core.credentials import redact_url
from rulebench.models.openai.endpoint_pool import Replica
from rulebench.models.openai.reply import clean_server_text, describe_connection_error, read_at_most

REACHABLE_TIMEOUT_S = 5.0
_BODY_BYTES = 64 * 1024
"""Most bytes read of a /models answer: only whether one comes matters."""


async def find_unreachable(
    session: aiohttp.ClientSession, replicas: Sequence[Replica], secrets: tuple[str, ...]
) -> list[tuple[Replica, str]]:
    """The replicas whose /models gets no HTTP answer, each with "<url>/models: <cause>"."""
    causes = await asyncio.gather(*(_probe(session, r, secrets) for r in replicas))
    return [(r, cause) for r, cause in zip(replicas, causes, strict=True) if cause]


async def _probe(
    session: aiohttp.ClientSession, replica: Replica, secrets: tuple[str, ...]
) -> str | None:
    """None when the endpoint answers /models with any status, else why not."""
    target = replica.endpoint.url("/models")
    url = redact_url(target, "drop")
    try:
        timeout = aiohttp.ClientTimeout(total=REACHABLE_TIMEOUT_S)
        async with session.get(target, timeout=timeout) as response:
            await read_at_most(response, _BODY_BYTES)
    except TimeoutError:
        return f"{url}: no answer within {REACHABLE_TIMEOUT_S:g} s"
    except aiohttp.ClientError as exc:
        return f"{url}: {clean_server_text(describe_connection_error(exc), secrets)}"
    return None
