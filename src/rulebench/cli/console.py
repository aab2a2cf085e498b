"""The two consoles: results go to stdout, progress, logs and errors to stderr."""

import logging

from rich.console import Console

out = Console()
# Messages on stderr are never wrapped: a command line or run id split across lines is useless.
err = Console(stderr=True, soft_wrap=True)


class State:
    """Global flags set by the top-level callback."""

    debug = False


def configure_logging(debug: bool) -> None:
    """Warnings (or everything, with --debug) to stderr, drawn by rich beside the progress bar."""
    from rich.logging import RichHandler

    handler = RichHandler(console=err, show_path=debug, show_time=debug, markup=False)
    logging.basicConfig(
        level=logging.DEBUG if debug else logging.WARNING, handlers=[handler], format="%(message)s"
    )
    # Third-party chatter (HTTP internals) stays out even in debug mode.
    for noisy in ("asyncio", "urllib3", "filelock", "httpx"):
        logging.getLogger(noisy).setLevel(logging.WARNING)
