"""Who sent the request being answered: its address, for limits that count per client.

Its own module, free of starlette: the quotas that read it load with `rulebench serve --help`,
which must import no web library.
"""

import contextvars

client_address: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "rulebench_client_address", default=None
)
"""The address of the client whose request is being answered (set by `SecurityMiddleware`);
quotas count per address too, since a visitor may drop its cookie."""
