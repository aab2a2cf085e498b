"""`--prompts` and `--upstream` for the commands that play RuLES scenarios (run, play, judge).

The option names are the ones `run inferential` uses; their help is `ScenarioOptions`' and the
default wording lives in the typed config (`Protocol.prompts`), so an option left out is None.
"""

from pathlib import Path
from typing import Annotated

from rulebench.cli.field_options import field_option
from rulebench.core.wording import Prompts
from rulebench.scenarios.run_options import ScenarioOptions

PromptsOption = Annotated[
    Prompts | None, field_option(ScenarioOptions, "prompts", "--prompts", shown=False)
]
UpstreamOption = Annotated[
    Path | None,
    field_option(ScenarioOptions, "upstream", "--upstream", shown=False, metavar="PATH"),
]
