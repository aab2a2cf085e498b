"""RuleBench's own prompt text (`--prompts upstream`), built by the user's clone at run time.

The sentences and demonstrations are upstream's, so rulebench never ships them: it runs the
clone's `TaskDataProcessor.prompt` in a child process (`child.py`) and sends what it returns.
"""
