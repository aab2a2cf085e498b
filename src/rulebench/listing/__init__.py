"""What can be run, by the names the commands and the API take: one listing for every front end.

`rulebench list`, `rulebench models`, the Python API's `list_*` functions and any web page that
shows what can be run read these modules, so a count or a name is computed in one place. Each
function returns frozen typed entries read from the registries themselves (never a copy), and
prints nothing: the front end renders them.

- `tasks`: the tasks `rulebench run` takes and the inferential datasets (`-t`).
- `scenarios`: scenarios with their rules, strict-mode fixes and GCG targets per rule.
- `suites`: the generated suites' sizes and the official releases' case counts.
- `plugins`: tasks, scenarios and model backends from other packages or `--include` folders.
- `models`: the model providers a spec can name.
- `sections`: the sections of `rulebench list`, by name.
- `tables`: each section as a table of plain text, and the listing's JSON.
"""
