"""`rulebench attack`: GCG suffixes (`attack_gcg`) and their transfer (`attack_transfer`)."""

import typer

from rulebench.cli.attack_gcg import gcg
from rulebench.cli.attack_transfer import transfer

app = typer.Typer(
    help="Adversarial attacks on rule-following: GCG suffixes and their transfer.",
    no_args_is_help=True,
)
app.command()(gcg)
app.command()(transfer)
