"""Defaults shown in `--help`, read from the configs that declare them (`core.field_defaults`)."""

from rulebench.core.field_defaults import default_of as default_of
from rulebench.core.field_defaults import shown_default as shown_default
