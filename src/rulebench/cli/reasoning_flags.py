"""The reasoning options every run command takes: the thinking switch, effort and think tags.

Their help and their reading are the library's (`engine.run_flags.ReasoningFlags`).
"""

from typing import Annotated

from rulebench.cli.field_options import field_option
from rulebench.engine.run_flags import ReasoningFlags, Switch


def _flag(field: str, metavar: str | None = None) -> object:
    return field_option(ReasoningFlags, field, metavar=metavar, shown=False)


ThinkingOption = Annotated[Switch | None, _flag("thinking")]
ReasoningEffortOption = Annotated[str | None, _flag("reasoning_effort", "<effort>")]
ReasoningTagsOption = Annotated[str | None, _flag("reasoning_tags", "<tags>")]
