"""The HTTP backend's connection pool and request slots, bound to the event loop in use.

A session and a semaphore belong to the loop they were made in, while a model may be built
outside any loop and used by several asyncio.run calls in turn: the pool is reopened whenever
the running loop changes, and a loop that ends without aclose() still closes its sockets.
"""

import asyncio
from collections.abc import AsyncGenerator, Mapping
from typing import NamedTuple

import aiohttp

from rulebench.models.openai.endpoint import Endpoint


def endpoint_headers(endpoint: Endpoint) -> dict[str, str]:
    """Built once: every request reuses them through the session's default headers."""
    headers = {"Content-Type": "application/json"}
    if endpoint.api_key is not None:  # one key for every replica: read from one variable
        headers["Authorization"] = f"Bearer {endpoint.api_key.get_secret_value()}"
    return headers


class LoopPool(NamedTuple):
    """The connection pool and request slots of one event loop."""

    loop: asyncio.AbstractEventLoop
    session: aiohttp.ClientSession
    slots: asyncio.Semaphore
    closer: AsyncGenerator[None, None]
    """Closes the session when the loop shuts down (see _close_with_loop)."""


async def _close_with_loop(session: aiohttp.ClientSession) -> AsyncGenerator[None, None]:
    # A started async generator is finalised by the loop's shutdown_asyncgens(), which
    # asyncio.run and pytest-asyncio call before closing the loop: the one hook asyncio offers
    # to close sockets of a model whose owner never called aclose() in that loop.
    try:
        yield
    finally:
        await session.close()


class SessionHolder:
    """Opens one LoopPool per running loop, with `limit` connections and request slots."""

    def __init__(self, headers: Mapping[str, str], timeout_s: float, limit: int) -> None:
        self._headers = dict(headers)
        self._timeout_s = timeout_s
        self._limit = limit
        self._now: LoopPool | None = None

    async def get(self) -> LoopPool:
        """The pool of the running loop, opened on first use in that loop."""
        pool = self._now
        if pool is None or pool.loop is not asyncio.get_running_loop():
            pool = self._now = await self._open()
        return pool

    async def _open(self) -> LoopPool:
        await self.aclose()
        limit = self._limit
        session = aiohttp.ClientSession(
            headers=self._headers,
            timeout=aiohttp.ClientTimeout(total=self._timeout_s),
            connector=aiohttp.TCPConnector(limit=limit, limit_per_host=limit),
        )
        closer = _close_with_loop(session)
        await anext(closer)
        return LoopPool(asyncio.get_running_loop(), session, asyncio.Semaphore(limit), closer)

    async def aclose(self) -> None:
        """Close the pooled connections."""
        pool, self._now = self._now, None
        if pool is None:
            return
        if pool.loop is asyncio.get_running_loop():
            await pool.closer.aclose()
        elif not pool.loop.is_closed():
            pool.session.detach()  # another thread's live loop: its connections are not ours
        # A closed loop has finalised `closer` already, closing the session.
