"""`rulebench models`: the providers a spec can name, and the embedded model."""

import typer

from rulebench.cli.console import out


def models() -> None:
    """List model providers (spec = provider/name) and where the embedded model is."""
    from rich.table import Table
    from rich.text import Text

    from rulebench.core.errors import ConfigError
    from rulebench.listing.models import list_models
    from rulebench.models.embedded import embedded_gguf_path
    from rulebench.models.registry import DEFAULT_MODEL
    from rulebench.report.untrusted import safe_text

    table = Table(title="Model providers", title_justify="left")
    for column in ("provider", "what", "example", "install"):
        table.add_column(column)
    for provider in list_models():
        # Text cells: as markup, "rulebench[hf]" would lose its "[hf]".
        cells = (provider.name, provider.description, provider.example, provider.install)
        table.add_row(*(Text(cell) for cell in cells))
    out.print(table)
    try:
        location = safe_text(embedded_gguf_path())
    except ConfigError as exc:
        location = Text.assemble(("not installed", "red"), " (", safe_text(exc), ")")
    out.print(
        Text.assemble(
            "Default model: ", (DEFAULT_MODEL, "bold"), " (embedded GGUF: ", location, ")"
        ),
        highlight=False,
    )


def register(app: typer.Typer) -> None:
    """Add the command to the main app."""
    app.command("models")(models)
