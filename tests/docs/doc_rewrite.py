"""A documented command's words as the suite runs them: stand-in models, tiny sizes, local paths."""

import re

STAND_IN_MODELS = ("scripted/echo", "scripted/rules", "scripted/fixed")
UNREACHABLE_MODEL = re.compile(r"(openai|openai-api|hf|llamacpp)/.+|MODEL|.*\{\w+\}.*")
"""Specs of an API, a server, a GPU or a reader-chosen model (`hf/<model>`, `MODEL`)."""
EMBEDDED = re.compile(r"(hf|llamacpp)/SmolLM2-135M-Instruct")
EMBEDDED_LLAMACPP = "llamacpp/SmolLM2-135M-Instruct"
RUN_PLACEHOLDER = re.compile(r"[A-Z_]*RUN[A-Z0-9_]*|BASE|SUFFIXED|\d{8}-\d{6}-[0-9a-f]{6}")
"""A run id the reader fills in (RUN_ID, RUN_A, JUDGE_RUN...), or an example run id."""
MODEL_OPTIONS = frozenset({"-m", "--model", "--teacher", "--allow-model"})
ENDPOINT_OPTIONS = frozenset({"--base-url", "-M", "--model-arg"})
"""Settings of the page's model (its server, its backend), which a stand-in does not take."""
OUTPUT_OPTIONS = frozenset({"-o", "--output", "--save", "--save-dir", "--html", "--store"})
PATH_OPTIONS = frozenset({"--include", "--data", "--suffix", "-s", "--suite", "--prices"})
GLOBAL_OPTIONS = frozenset({"--include"})
"""`rulebench` options before the command that take a value."""
ALIASES = {"-n": "--limit", "-o": "--output", "-m": "--model", "-s": "--suite", "-M": "--model-arg"}
SIZES: dict[tuple[str, str], tuple[tuple[str, int], ...]] = {
    ("run", "inferential"): (("--per-group", 2), ("--limit", 4)),
    ("run", "scenarios"): (("--per-group", 1), ("--limit", 4)),
    ("run", "judge"): (("--per-group", 2), ("--limit", 4)),
    ("train", "data"): (("--limit", 20), ("--per-group", 2)),
    ("train", "compare"): (("--per-group", 2),),
    ("attack", "transfer"): (("--per-group", 1),),
}
"""The size options of each command that runs a model, and the most the suite lets them ask."""


class CannotRun(Exception):
    """The suite cannot run the command; the message says why."""


def rewrite(words: tuple[str, ...], producer: bool) -> tuple[str, ...]:
    """The command as the suite runs it; `producer`: it only makes a run another command reads."""
    words = _without_optional(words)
    _refuse_outside(words)
    if producer and subcommand(words) == ("run", ""):
        words = (*words, "smoke")
    if producer:  # it only makes a run to read: generating answers makes one on any model
        words = tuple(_without_options(list(words), frozenset({"--scoring"})))
    keep = not producer and (words == ("rulebench", "run") or _scores_likelihood(words))
    words = _tiny(_stand_in_models(words, keep))
    if keep:  # the same weights on llama.cpp: converting them for hf takes minutes on 2 cores
        words = tuple(EMBEDDED_LLAMACPP if EMBEDDED.fullmatch(w) else w for w in words)
    return tuple("tmp/" + w[5:] if w.startswith("/tmp/") else w for w in words)


def subcommand(words: tuple[str, ...]) -> tuple[str, str]:
    """The command's first two words after `rulebench` and its global options ("" if none)."""
    index = 1
    while index < len(words) and words[index].startswith("-"):
        index += 2 if words[index] in GLOBAL_OPTIONS else 1
    rest = [*words[index : index + 2], "", ""]
    return rest[0], rest[1]


def option_values(words: tuple[str, ...], option: str) -> list[str]:
    """Every value given to `option` (or its short alias)."""
    names = {option} | {short for short, long in ALIASES.items() if long == option}
    return [words[i + 1] for i, word in enumerate(words[:-1]) if word in names]


def _without_optional(words: tuple[str, ...]) -> tuple[str, ...]:
    """Without a usage line's optional part (`[RUN_ID ...]`)."""
    kept, inside = [], False
    for word in words:
        inside = inside or word.startswith("[")
        if not inside:
            kept.append(word)
        inside = inside and not word.endswith("]")
    return tuple(kept)


def _refuse_outside(words: tuple[str, ...]) -> None:
    """CannotRun for a path in the reader's home or a shell variable the page does not set."""
    for word in words:
        if word.startswith("~"):
            raise CannotRun(f"it reads {word!r}, outside the checkout")
        if re.search(r"\$(?!\(python -c )", word):
            raise CannotRun(f"{word!r} holds a shell variable or command the page does not set")


def _scores_likelihood(words: tuple[str, ...]) -> bool:
    """Log-likelihood scoring needs a local model's token probabilities: the embedded one stays."""
    return any(value.startswith("loglik") for value in option_values(words, "--scoring"))


def _stand_in_models(words: tuple[str, ...], keep_embedded: bool) -> tuple[str, ...]:
    """Scripted models for those the suite cannot reach, their endpoint settings dropped."""
    given = [words[i + 1] for i, w in enumerate(words[:-1]) if w in MODEL_OPTIONS]
    free = [spec for spec in STAND_IN_MODELS if spec not in given]
    chosen: dict[str, str] = {}
    out: list[str] = []
    for index, word in enumerate(words):
        is_model = index and words[index - 1] in MODEL_OPTIONS
        if (
            is_model
            and UNREACHABLE_MODEL.fullmatch(word)
            and not (keep_embedded and EMBEDDED.fullmatch(word))
        ):
            word = chosen.setdefault(word, free[len(chosen)])
        out.append(word)
    if chosen:
        out = _without_options(out, ENDPOINT_OPTIONS)
    runs_model = subcommand(words)[0] == "play" or subcommand(words)[0:1] == ("run",)
    runs_model = runs_model and subcommand(words)[1] not in ("", "--resume")
    if runs_model and not given and not keep_embedded:
        out += ["-m", free[0]]
    return tuple(out)


def _without_options(words: list[str], options: frozenset[str]) -> list[str]:
    kept: list[str] = []
    for index, word in enumerate(words):
        if word not in options and not (index and words[index - 1] in options):
            kept.append(word)
    return kept


def _tiny(words: tuple[str, ...]) -> tuple[str, ...]:
    """The command with each size option at most the suite's cap (added where not given)."""
    out = list(words)
    for option, cap in SIZES.get(subcommand(words), ()):
        names = {option} | {short for short, long in ALIASES.items() if long == option}
        at = [i for i, word in enumerate(out[:-1]) if word in names]
        for index in at:
            out[index + 1] = str(min(int(out[index + 1]), cap))
        if not at and not (option == "--per-group" and "--full" in out):
            out += [option, str(cap)]
    return tuple(out)


def tiny_experiment(text: str) -> str:
    """An experiment file with stand-in models and tiny sizes (a limit under [defaults])."""
    pool = iter(spec for spec in STAND_IN_MODELS if f'"{spec}"' not in text)

    def model(match: re.Match[str]) -> str:
        if UNREACHABLE_MODEL.fullmatch(match.group(2)):
            return f'{match.group(1)}"{next(pool)}"'
        return match.group(0)

    text = re.sub(r'(spec\s*=\s*)"([^"]+)"', model, text)
    text = re.sub(
        r"(per_group\s*=\s*)(\d+)", lambda m: f"{m.group(1)}{min(int(m.group(2)), 2)}", text
    )
    if not re.search(r"^limit\s*=", text, flags=re.MULTILINE):
        text = re.sub(r"^\[defaults\].*$", r"\g<0>\nlimit = 4", text, count=1, flags=re.MULTILINE)
    return text
