"""Whether an OpenAI-compatible model's servers answer at all, asked before a run starts."""

import asyncio
from collections.abc import Sequence

import aiohttp

from rulebench.core.credentials import redact_url
from rulebench.core.errors import ModelError
from rulebench.models.openai.endpoint_pool import EndpointPool, Replica
from rulebench.models.openai.reply import clean_server_text, describe_connection_error, read_at_most

REACHABLE_TIMEOUT_S = 5.0
_BODY_BYTES = 64 * 1024
"""Most bytes read of a /models answer: only whether one comes matters."""


async def check_reachable(
    session: aiohttp.ClientSession,
    label: str,
    replicas: Sequence[Replica],
    secrets: tuple[str, ...],
    pool: EndpointPool | None,
) -> None:
    """Fail fast with one line when no server is up, instead of a run full of errors.

    Any HTTP status counts as reachable: some servers guard /models with a key or lack it.
    With several endpoints, the dead ones are named in a warning and left out of the first
    requests (`pool`); only when none answers is it an error.
    """
    dead = await find_unreachable(session, replicas, secrets)
    if len(dead) == 1 and len(replicas) == 1:
        raise ModelError(f"{label}: cannot reach {dead[0][1]}")
    if len(dead) == len(replicas):
        raise ModelError(
            f"{label}: cannot reach any of its {len(replicas)} servers: "
            + "; ".join(cause for _, cause in dead)
        )
    if pool is not None:
        for replica, cause in dead:  # each logs a warning naming the replica
            pool.failed(replica, f"cannot reach {cause}")


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
