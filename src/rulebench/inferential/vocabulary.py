"""The closed answer sets of the inferential tasks, each written once.

Loaders, generators, templates and extractors all import them from here, so a prompt never
offers a label the scorer does not read, and the generator never concludes one it cannot ask.
"""

KINSHIP_LABELS: tuple[str, ...] = (
    "father",
    "mother",
    "grandfather",
    "grandmother",
    "son",
    "daughter",
    "grandson",
    "granddaughter",
    "father-in-law",
    "mother-in-law",
    "son-in-law",
    "daughter-in-law",
    "sister",
    "brother",
    "uncle",
    "aunt",
    "nephew",
    "niece",
)
"""The 18 relations a factual kinship answer can be (clutrr, generated kinship), in the order
the paper's clutrr scorer lists them."""

KINSHIP_CF_LABELS: tuple[str, ...] = (*KINSHIP_LABELS, "stepson", "stepdaughter")
"""Counterfactual kinship rules also conclude stepson and stepdaughter (clutrr-cf's 20 labels);
the released scorer reads a reply against all 20 whichever set it scores."""

ULOGIC_ANSWERS: tuple[str, ...] = (
    "True",
    "False",
    "CannotJudge",
    "NotSure",
    "CannotEntail",
    "LackOfEvidence",
    "NeedMoreInfo",
)
"""The answers a ulogic prompt offers: true, false and abstentions, which always score wrong.

The gold is lowercase ("true"/"false", as the paper's scorer compares it), so compare it with
these case-insensitively."""

OPTION_LETTERS: tuple[str, ...] = ("a", "b", "c", "d")
"""The option letters of the four-option multiple-choice tasks (deer, theoremQA), lowercase as
their gold is written."""
