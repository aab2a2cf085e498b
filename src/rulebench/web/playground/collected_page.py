"""The collected cases: the save folder summarised, and played against another model.

`/play/collected` counts the saved cases by scenario, rule, red-team strategy and the model
they were collected against, with how many broke a rule when saved; filters narrow the list.
Its form (POST `/play/collected/run`) replays the chosen cases against a model the server
allows, in the background (`collected_runs`); `/play/collected/runs/{id}` shows the progress,
then each case's verdict. Both pages name the CLI command that makes the cases a stored run
and say what it runs (`collected_command`: whole files, one command per rule version).
"""

import threading
from collections import Counter
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Annotated

from fastapi import APIRouter, Query, Request
from fastapi import Path as PathParam
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from rulebench.core.cases import TestCase
from rulebench.core.errors import ConfigError, RulebenchError
from rulebench.scenarios.played import STRATEGIES, note_of
from rulebench.web.explorer.views import NotFound
from rulebench.web.playground.collected_command import (
    Chosen,
    CollectedCommand,
    Folder,
    collected_command,
)
from rulebench.web.playground.collected_runs import CollectedRuns, new_job
from rulebench.web.playground.forms import read_form
from rulebench.web.playground.play_request import error_status, playground_of
from rulebench.web.playground.saved_cases import list_saved, saved_names, user_turns
from rulebench.web.playground.state import Playground, new_token
from rulebench.web.playground.visitors import set_visitor, visitor_of
from rulebench.web.templating import query_url, render_page

router = APIRouter(prefix="/play/collected")

FILTERS = ("scenario", "behavior", "strategy", "model")
NOT_RECORDED = "(not recorded)"
Filter = Annotated[str, Query(max_length=200)]
_SPELLED = {name.casefold(): name for name in STRATEGIES}
"""A strategy in any case -> the suites' one spelling ("Just ask" and "Just Ask" are one)."""
JobId = Annotated[str, PathParam(max_length=64, pattern=r"^[A-Za-z0-9_-]+$")]
_jobs_lock = threading.Lock()


def facts(case: TestCase) -> dict[str, str]:
    """The values the page groups and filters a case by."""
    note = note_of(case)
    return {
        "scenario": case.scenario,
        "behavior": case.behavior,
        "strategy": _strategy(case.category),
        "model": (note.model if note is not None else None) or NOT_RECORDED,
    }


def _strategy(category: str) -> str:
    """The suites' spelling of a known strategy; another (`manual`, a user's own) capitalized."""
    folded = category.casefold()
    return _SPELLED.get(folded, folded.capitalize())


def collected(save_dir: Path) -> tuple[list[tuple[str, TestCase]], list[str]]:
    """Every saved case with its file name, and the problems of files that did not read."""
    cases, problems = [], []
    for saved in list_saved(save_dir, 0, len(saved_names(save_dir))):
        if saved.problem is not None:
            problems.append(f"{saved.name}: {saved.problem}")
        cases += [(saved.name, case) for case in saved.cases]
    return cases, problems


def chosen(
    cases: Iterable[tuple[str, TestCase]], wanted: Mapping[str, str]
) -> list[tuple[str, TestCase]]:
    """The cases matching every given filter."""
    given = {name: value for name, value in wanted.items() if value}
    return [(f, c) for f, c in cases if all(facts(c)[k] == v for k, v in given.items())]


def summary(cases: list[tuple[str, TestCase]]) -> dict[str, list[dict[str, object]]]:
    """Per grouping: each value's case count and how many broke a rule when saved."""
    tables: dict[str, list[dict[str, object]]] = {}
    for name in FILTERS:
        total: Counter[str] = Counter()
        broke: Counter[str] = Counter()
        for _, case in cases:
            value = facts(case)[name]
            total[value] += 1
            note = note_of(case)
            broke[value] += bool(note is not None and note.broke)
        tables[name] = [
            {"value": value, "cases": count, "broke": broke[value]}
            for value, count in sorted(total.items(), key=lambda pair: (-pair[1], pair[0]))
        ]
    return tables


def _jobs(request: Request) -> CollectedRuns:
    with _jobs_lock:
        if not hasattr(request.app.state, "collected_runs"):
            request.app.state.collected_runs = CollectedRuns()
        jobs: CollectedRuns = request.app.state.collected_runs
    return jobs


def command_for(
    playground: Playground, picked: Chosen, every: Chosen, unread: list[str], spec: str
) -> CollectedCommand:
    """The stored-run command for `picked` as this server may show it."""
    save_dir, config = playground.config.save_dir, playground.config
    listed = sorted(p.name for p in save_dir.glob("*.jsonl")) if save_dir.is_dir() else []
    whole = not unread and listed == saved_names(save_dir)
    upstream = None
    if config.upstream is not None and config.show_paths:
        upstream = config.upstream.root
    folder = Folder(save_dir, config.show_paths, whole)
    return collected_command(picked, every, folder, playground.hide_secrets(spec), upstream)


def _context(request: Request, wanted: Mapping[str, str], problem: str | None) -> dict[str, object]:
    playground = playground_of(request)
    cases, unread = collected(playground.config.save_dir)
    picked = chosen(cases, wanted)
    tables = summary(picked)
    return {
        "title": "Collected cases",
        "store": request.app.state.store_label,
        "total": len(cases),
        "picked": len(picked),
        "broke": sum(bool((n := note_of(c)) and n.broke) for _, c in picked),
        "tables": tables,
        "wanted": dict(wanted),
        "filter_urls": {
            name: {
                row["value"]: query_url("/play/collected", {**wanted, name: row["value"]})
                for row in rows
            }
            for name, rows in tables.items()
        },
        "unread": [playground.hide_secrets(p) for p in unread],
        "problem": problem,
        "model": playground.config.model,
        "allowed": None if playground.config.any_model else playground.models.allowed,
        "command": command_for(playground, picked, cases, unread, playground.config.model),
    }


@router.get("", response_class=HTMLResponse)
def collected_page(
    request: Request,
    scenario: Filter = "",
    behavior: Filter = "",
    strategy: Filter = "",
    model: Filter = "",
) -> HTMLResponse:
    """The summary of the save folder's cases, filtered, and the form to play them again."""
    wanted = {"scenario": scenario, "behavior": behavior, "strategy": strategy, "model": model}
    return render_page("collected.html", _context(request, wanted, None))


@router.post("/run", response_class=HTMLResponse)
async def run_collected(request: Request) -> Response:
    """Play the chosen cases against the form's model in the background; its progress page."""
    playground = playground_of(request)
    form = await read_form(request)
    wanted = {name: form.get(f"filter_{name}", "")[:200] for name in FILTERS}
    visitor = visitor_of(request) or new_token()
    spec = form.get("model", "").strip() or playground.config.model
    cases = chosen(collected(playground.config.save_dir)[0], wanted)
    try:
        if not cases:
            raise ConfigError("no collected case matches: nothing to play")
        for file, case in cases:  # a longer job waits for the window, case by case
            playground.limits.check_fits(user_turns(case), f"case {case.id} of {file}")
        model = await playground.models.get(spec)
        job = _jobs(request).start(
            playground, request.app.state.store_path, new_job(visitor, spec, cases), model
        )
    except RulebenchError as exc:
        problem = playground.hide_secrets(str(exc))
        return render_page("collected.html", _context(request, wanted, problem), error_status(exc))
    response = RedirectResponse(f"/play/collected/runs/{job.id}", status_code=303)
    if visitor_of(request) is None:
        set_visitor(response, visitor)
    return response


@router.get("/runs/{job_id}", response_class=HTMLResponse)
def job_page(request: Request, job_id: JobId) -> HTMLResponse:
    """A job's progress, then each case's verdict (reloads itself while it runs)."""
    playground = playground_of(request)
    job = _jobs(request).find(job_id, visitor_of(request))
    if job is None:
        raise NotFound("no such run of collected cases (runs live in this server's memory)")
    cases, unread = collected(playground.config.save_dir)
    played = [(o.file, o.case) for o in job.outcomes]
    context = {
        "title": "Collected cases played again",
        "store": request.app.state.store_label,
        "job": job,
        "command": command_for(playground, played, cases, unread, job.model),
    }
    return render_page("collected_run.html", context)
