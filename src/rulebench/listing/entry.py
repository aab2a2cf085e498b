"""The base of every listed entry: frozen data with no unknown fields."""

from pydantic import BaseModel, ConfigDict


class Listed(BaseModel):
    """One row of a listing; its fields are in the order `rulebench list --json` writes them."""

    model_config = ConfigDict(frozen=True, extra="forbid")
