"""What a starting server says: who can reach it, options it ignores, and where it listens.

Composed here, printed by the front end that starts the server (the CLI, on stderr), so
every front end warns alike before it serves a store to other machines.
"""

from rulebench.web.serve import ServeConfig


def created_store_note(config: ServeConfig) -> str:
    """The line that says the first store was just created, empty (`create_missing_store`)."""
    return (
        f"created an empty results store at {config.store}: runs appear here once "
        f"`rulebench run ... --store {config.store}` writes to it"
    )


def remote_warning(config: ServeConfig) -> str | None:
    """The warning a server other machines reach deserves: what they read, play and write."""
    if not config.is_remote:
        return None
    playground = config.playground
    who = "anyone with the token" if config.token else "anyone"
    models = ", ".join(playground.allowed_models)
    return (
        f"warning: serving on {config.host}, reachable from other machines: {who} who reaches "
        f"port {config.port} reads every prompt, reply and config in {_stores(config)}, plays "
        f"{playground.model}{f' (or {models})' if models else ''} and saves to "
        f"{playground.save_dir} ({'a shared token, ' if config.token else ''}no login)"
    )


def startup_notes(config: ServeConfig, quotas_given: bool) -> list[str]:
    """One line for each option given that this server ignores (it serves no one else)."""
    if config.is_remote or config.allow_remote:
        return []
    notes = []
    if config.playground.allowed_models:
        notes.append("note: --allow-model matters with --allow-remote only (here any model plays)")
    if quotas_given:
        notes.append(
            "note: --quota matters with --allow-remote only (a server only this machine "
            "reaches limits no one)"
        )
    return notes


def listening_line(config: ServeConfig) -> str:
    """The explorer's and the playground's URLs, the stores shown and the save folder."""
    host, port = config.host, config.port
    shown = f"[{host}]" if ":" in host else host  # an IPv6 address, as a URL writes it
    word = "stores" if config.more_stores else "store"
    return (
        f"rulebench explorer: http://{shown}:{port}/ ({word} {_stores(config)}); "
        f"playground: http://{shown}:{port}/play (saves to {config.playground.save_dir}); "
        "Ctrl+C stops"
    )


def _stores(config: ServeConfig) -> str:
    return ", ".join(str(path) for path in config.stores)
