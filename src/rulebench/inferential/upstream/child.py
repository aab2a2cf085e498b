"""Run upstream's `TaskDataProcessor.prompt` in a child process and print its prompts as JSON.

This file is run as a script (`python -I -S child.py`), never imported by rulebench: upstream's
`processor.py` imports torch and pandas at module level, and rulebench's process must stay
free of both (and of whatever the user's clone does at import). The child sees only the
standard library; every other import (torch, pandas, a local helper's dependencies) gets an
inert stand-in module, which is enough because building a prompt uses none of them.

Protocol: one JSON request on stdin, one JSON response on stdout (upstream's own prints go to
stderr). Request: {"processor": path, "class": name, "method": name, "rules": {dataset: rule
dict}, "calls": [{"dataset", "args", "record", "seed", "all_number"}]} (`all_number` null: the
call passes none, as main.py's behaviour analysis does). Response: {"prompts": [{"text", "info",
"listed", "sampled_set"}]} or {"error": {"index", "type", "message", "line", "missing"}}.
Python's `random` is seeded from each call's seed string just before the call, so upstream's
own draws (noise rules, shuffles) are reproducible run to run.

Two stand-ins keep the paper's behaviour on this Python and say what upstream listed:
- `random.sample` on a set-like population (upstream samples `dict.keys()`) converts it with
  `tuple()` first, as CPython up to 3.10 did (3.11 raises TypeError); the prompt records that
  it happened (`sampled_set`). The draw itself is the unchanged library function.
- `random.shuffle` keeps a copy of what it shuffled last: upstream shuffles the listed rules
  once, right before writing them, so that copy is the listed order (`listed`, as rule ids).
"""

import collections.abc
import importlib.abc
import importlib.machinery
import importlib.util
import json
import random
import sys
import traceback
import types
from typing import Any

Json = dict[str, Any]
"""Raw JSON objects of the request and response (the child has no typed models)."""


class _Inert:
    """Anything at all: callable, subclassable, every attribute another stand-in."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        pass

    def __call__(self, *args: object, **kwargs: object) -> "_Inert":
        return _Inert()

    def __getattr__(self, name: str) -> "_Inert":
        return _Inert()


class _InertModule(types.ModuleType):
    """A stand-in for a module the child does not have (torch, pandas...)."""

    def __getattr__(self, name: str) -> object:
        if name.startswith("__"):
            raise AttributeError(name)
        return type(name, (_Inert,), {})


class _InertFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Last on the meta path: whatever no real finder found becomes an inert package."""

    def __init__(self) -> None:
        self.stubbed: list[str] = []

    def find_spec(self, fullname, path=None, target=None):  # type: ignore[no-untyped-def]
        return importlib.machinery.ModuleSpec(fullname, self, is_package=True)

    def create_module(self, spec):  # type: ignore[no-untyped-def]
        module = _InertModule(spec.name)
        module.__path__ = []
        self.stubbed.append(spec.name)
        return module

    def exec_module(self, module):  # type: ignore[no-untyped-def]
        pass


class _Draws:
    """What upstream's calls to `random` did during one prompt (see the module docstring)."""

    def __init__(self) -> None:
        self.sampled_set = False
        self.shuffled: list[Any] | None = None
        self._sample = random.sample
        self._shuffle = random.shuffle

    def install(self) -> None:
        random.sample = self.sample
        random.shuffle = self.shuffle  # type: ignore[assignment]  # list-only, as upstream uses it

    def reset(self) -> None:
        self.sampled_set, self.shuffled = False, None

    def sample(self, population: Any, k: int, **kwargs: Any) -> list[Any]:
        if isinstance(population, collections.abc.Set):
            self.sampled_set = True
            population = tuple(population)  # CPython 3.10's random.sample did exactly this
        return self._sample(population, k, **kwargs)

    def shuffle(self, x: list[Any]) -> None:
        self._shuffle(x)
        self.shuffled = list(x)


DRAWS = _Draws()


def _load(processor: str) -> types.ModuleType:
    folder = processor.rsplit("/", 1)[0] if "/" in processor else "."
    sys.path.insert(0, folder)
    sys.meta_path.append(_InertFinder())
    spec = importlib.util.spec_from_file_location("upstream_processor", processor)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {processor}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _jsonable(value: object) -> object:
    try:
        json.dumps(value)
    except (TypeError, ValueError):
        return str(value)
    return value


class NoPromptError(Exception):
    """Upstream's `prompt` returned no prompt for the call (no branch set one)."""


def _listed_ids(shuffled: list[Any] | None, rules: Json, form: str) -> list[str] | None:
    """The rule ids of the last shuffled list, in its order; None if an entry is no rule.

    Entries are a rule's text, or "ID. text" (law-cf's rule-citation list).
    """
    if not shuffled or not isinstance(rules, dict):
        return None
    by_text: dict[str, str] = {}
    for rule_id, rule in rules.items():
        if isinstance(rule, dict) and isinstance(rule.get(form), str):
            by_text.setdefault(rule[form], rule_id)
    ids = []
    for entry in shuffled:
        if not isinstance(entry, str):
            return None
        head, _, rest = entry.partition(". ")
        rule = rules.get(head)
        if rest and isinstance(rule, dict) and rule.get(form) == rest:
            ids.append(head)
        elif entry in by_text:
            ids.append(by_text[entry])
        else:
            return None
    return ids


def _one(processor_class: type, method: str, rules: Json, call: Json) -> Json:
    """One prompt: a fresh processor on this call's args, seeded, one sample."""
    args = types.SimpleNamespace(**call["args"])
    processor = processor_class(args)
    processor.test_rule = rules[call["dataset"]]
    random.seed(call["seed"])
    DRAWS.reset()
    extra_args = {} if call["all_number"] is None else {"all_number": call["all_number"]}
    built = getattr(processor, method)(samples=[call["record"]], **extra_args)
    if not isinstance(built, (list, tuple)) or len(built) != 1:
        raise TypeError(f"{method} returned {type(built).__name__}, not a one-prompt list")
    prompt = built[0]
    info = None
    if isinstance(prompt, (tuple, list)):
        # The behaviour-analysis branches return (prompt, [sample, golden, golden rule]).
        prompt, extra = prompt[0], prompt[1]
        if isinstance(extra, (tuple, list)) and len(extra) > 1:
            info = _jsonable(extra[1])
    if prompt is None:
        raise NoPromptError(f"{method} returned None for this call")
    if not isinstance(prompt, str):
        raise TypeError(f"{method} built a {type(prompt).__name__}, not a prompt string")
    listed = _listed_ids(DRAWS.shuffled, rules[call["dataset"]], str(args.rule_type))
    return {"text": prompt, "info": info, "listed": listed, "sampled_set": DRAWS.sampled_set}


def _error(index: int, exc: BaseException, processor: str) -> Json:
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename == processor]
    line = frames[-1].lineno if frames else None
    missing = exc.name if isinstance(exc, (AttributeError, NameError)) else None
    return {
        "index": index,
        "type": type(exc).__name__,
        "message": str(exc),
        "line": line,
        "missing": missing,
    }


def main() -> None:
    """Read the request, build every prompt, print the response."""
    request = json.loads(sys.stdin.read())
    out = sys.stdout
    sys.stdout = sys.stderr  # upstream prints progress and parse notes
    processor = request["processor"]
    index = -1
    try:
        DRAWS.install()
        module = _load(processor)
        processor_class = getattr(module, request["class"])
        prompts = []
        for position, call in enumerate(request["calls"]):
            index = position  # named in the error if this call fails
            prompts.append(_one(processor_class, request["method"], request["rules"], call))
        response: Json = {"prompts": prompts}
    except Exception as exc:  # every failure goes back to the parent as data
        response = {"error": _error(index, exc, processor)}
    out.write(json.dumps(response))
    out.flush()


if __name__ == "__main__":
    main()
