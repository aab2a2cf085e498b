"""The StringGame rule library: conditions, outputs and their pairing into executable rules."""

from rulebench.inferential.tasks.stringgame.rules.letters import CONVENTIONS
from rulebench.inferential.tasks.stringgame.rules.library import LIBRARY, StringRule

__all__ = ["CONVENTIONS", "LIBRARY", "StringRule"]
