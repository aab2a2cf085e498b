"""`rulebench models`: the providers a spec can name, and the embedded model."""

import typer

from rulebench.cli.console import out


def models() -> None:
    """List model providers (spec = provider/name) and where the embedded model is."""
    from rich.table import Table

    from rulebench.core.errors import ConfigError
    from rulebench.models.embedded import embedded_gguf_path
    from rulebench.models.registry import DEFAULT_MODEL, PROVIDERS

    table = Table(title="Model providers", title_justify="left")
    for column in ("provider", "what", "example", "install"):
        table.add_column(column)
    for name, provider in PROVIDERS.items():
        install = f"pip install 'rulebench[{provider.extra}]'" if provider.extra else "included"
        table.add_row(name, provider.description, provider.example, install)
    out.print(table)
    try:
        location = str(embedded_gguf_path())
    except ConfigError as exc:
        location = f"[red]not installed[/red] ({exc})"
    out.print(f"Default model: [bold]{DEFAULT_MODEL}[/bold] (embedded GGUF: {location})")


def register(app: typer.Typer) -> None:
    """Add the command to the main app."""
    app.command("models")(models)
