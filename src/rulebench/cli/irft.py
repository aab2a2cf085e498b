"""`rulebench irft compare`: the old spelling of `rulebench train compare`, for one release."""

import typer

from rulebench.cli.train_compare import compare

app = typer.Typer(
    help="Renamed: `rulebench train compare`.",
    no_args_is_help=True,
    hidden=True,
)


@app.callback()
def _renamed() -> None:
    """The group moved under `train`: one line says so before the command runs."""
    from rulebench.cli.renamed_options import warn_renamed

    warn_renamed("rulebench irft compare", "rulebench train compare")


app.command()(compare)
