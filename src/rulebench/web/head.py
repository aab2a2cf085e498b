"""HEAD requests answered as GET without a body, as HTTP asks of every GET resource.

FastAPI routes registered for GET refuse HEAD with 405; link checkers, proxies and `curl -I`
send HEAD. The app runs the GET route and sends its status and headers (Content-Length
included, as GET would send it) with an empty body.
"""

from starlette.types import ASGIApp, Message, Receive, Scope, Send


class HeadAsGet:
    """Runs a HEAD request as GET and drops the body of the answer."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Handle one ASGI connection."""
        if scope["type"] != "http" or scope["method"] != "HEAD":
            await self.app(scope, receive, send)
            return

        async def send_headers_only(message: Message) -> None:
            if message["type"] == "http.response.body":
                message = {**message, "body": b""}
            await send(message)

        await self.app({**scope, "method": "GET"}, receive, send_headers_only)
