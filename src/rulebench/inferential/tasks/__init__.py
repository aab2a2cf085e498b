"""One module per task: generators (kinship, stringgame) and official-format loaders.

Contract shared by all of them: they return a `rulebench.core.rules.TaskData`. Generated samples
list in `metadata["applicable_rules"]` every rule of the task's rule set that applies to the
question (the golden one included), so noise rules are drawn only from rules that do not apply.
"""
