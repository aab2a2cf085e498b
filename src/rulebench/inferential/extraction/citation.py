"""Which listed rule a reply says it applied ("Applied rule: N"), for the behaviour analysis.

A wrong answer citing a noise rule is a triggering error, one citing the golden rule an
execution error, one citing nothing its own class; this module only reads the citation.
"""

import re

# Separators are one character class per gap, so a long run of spaces or markup costs linear
# time (nested optional runs such as `\s*[:]?\s*` backtrack cubically on a reply with no digit).
_CITATION = re.compile(
    r"applied[\W_]+rule[\W_]*(?:(?:rule|no|number)[\W_]*)?(?P<number>\d{1,6})(?!\d)",
    re.IGNORECASE,
)


def cited_rule(reply: str) -> int | None:
    """The 1-based rule number from the last "Applied rule: N" in the reply, else None.

    The last citation wins because a chain of thought may mention a rule it then rejects before
    the final citation. Markdown, case and spellings such as `Applied rule: #3.`, `**Applied
    Rule:** 3` or `applied rule: rule 3` are read; a rule 0 is no citation (rules are numbered
    from 1) and a number of more than six digits is not read.
    """
    found = list(_CITATION.finditer(reply))
    if not found:
        return None
    number = int(found[-1].group("number"))
    return number if number >= 1 else None
