"""The built-in inferential tasks, one place per task.

A task is one module declaring its `TaskDefinition` beside its loader or generator, its prompt
template and its reading of replies (deer, theoremqa, ulogic, salad), or a subpackage where that
would not fit one module: kinship and stringgame (generators), law. clutrr asks kinship's
question, so it takes kinship's template and extraction. What tasks share (the template type,
extraction steps, the release's folder layout) sits one level up, in `rulebench.inferential`.

Contract shared by all of them: they return a `rulebench.core.rules.TaskData`. Generated samples
list in `metadata["applicable_rules"]` every rule of the task's rule set that applies to the
question (the golden one included), so noise rules are drawn only from rules that do not apply.
"""
