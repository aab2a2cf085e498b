"""`rulebench train`: IRFT data, STaR data, LoRA tuning and the before/after comparison."""

import typer

from rulebench.cli.train_compare import compare
from rulebench.cli.train_data import data
from rulebench.cli.train_irft import irft
from rulebench.cli.train_star import star

app = typer.Typer(
    help="IRFT: rule-following data (StringGame, in-domain, STaR), LoRA tuning of hf models, "
    "and the before/after comparison.",
    no_args_is_help=True,
)
app.command()(data)
app.command()(star)
app.command()(irft)
app.command()(compare)
