"""Run upstream's `TaskDataProcessor.prompt` in a child process and print its prompts as JSON.

This file is run as a script (`python -I -S child.py`), never imported by rulebench: upstream's
`processor.py` imports torch and pandas at module level, and rulebench's process must stay
free of both (and of whatever the user's clone does at import). The child sees only the
standard library; every other import (torch, pandas, a local helper's dependencies) gets an
inert stand-in module, which is enough because building a prompt uses none of them.

Protocol: one JSON request on stdin, one JSON response on stdout (upstream's own prints go to
stderr). Request: {"processor": path, "class": name, "method": name, "rules": {dataset: rule
dict}, "calls": [{"dataset", "args", "record", "seed", "all_number"}]} (`all_number` null: the
call passes none, as main.py's behaviour analysis does). Response: {"prompts": [{"text",
"sampled_set"} or {"failed": {"type", "message", "line", "missing"}}]}, one per call (a call
that raises does not stop the others), or {"error": {"index": -1, ...}} when the file itself
cannot be loaded. Python's `random` is seeded from each call's seed string just before the
call, so upstream's own draws (noise rules, shuffles) are reproducible run to run.

One stand-in keeps the paper's behaviour on this Python: `random.sample` on a set-like
population (upstream samples `dict.keys()`) converts it with `tuple()` first, as CPython up to
3.10 did (3.11 raises TypeError); the prompt records that it happened (`sampled_set`). The draw
itself is the unchanged library function. Which rules a prompt lists is read by rulebench from
the prompt text (`listing.py`), not from upstream's draws.
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
        self._sample = random.sample

    def install(self) -> None:
        random.sample = self.sample

    def reset(self) -> None:
        self.sampled_set = False

    def sample(self, population: Any, k: int, **kwargs: Any) -> list[Any]:
        if isinstance(population, collections.abc.Set):
            self.sampled_set = True
            population = tuple(population)  # CPython 3.10's random.sample did exactly this
        return self._sample(population, k, **kwargs)


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


class NoPromptError(Exception):
    """Upstream's `prompt` returned no prompt for the call (no branch set one)."""


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
    if isinstance(prompt, (tuple, list)):
        # The behaviour-analysis branches return (prompt, [sample, golden, golden rule]); which
        # rules the prompt lists is read from its text, like every other prompt's.
        prompt = prompt[0]
    if prompt is None:
        raise NoPromptError(f"{method} returned None for this call")
    if not isinstance(prompt, str):
        raise TypeError(f"{method} built a {type(prompt).__name__}, not a prompt string")
    return {"text": prompt, "sampled_set": DRAWS.sampled_set}


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
    try:
        DRAWS.install()
        module = _load(processor)
        processor_class = getattr(module, request["class"])
    except Exception as exc:  # every failure goes back to the parent as data
        out.write(json.dumps({"error": _error(-1, exc, processor)}))
        out.flush()
        return
    prompts = []
    for position, call in enumerate(request["calls"]):
        try:
            prompts.append(_one(processor_class, request["method"], request["rules"], call))
        except Exception as exc:  # this call's failure; the others still build
            prompts.append({"failed": _error(position, exc, processor)})
    response: Json = {"prompts": prompts}
    out.write(json.dumps(response))
    out.flush()


if __name__ == "__main__":
    main()
