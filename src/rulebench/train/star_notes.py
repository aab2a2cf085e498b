"""What a front end says about a `train star` build: its settings, its rounds, its folder."""

from pydantic import JsonValue

from rulebench.train.star import RoundReport, StarPlan, StarResult
from rulebench.train.star_manifest import TeacherReasoning

HOW = {"new": "asked now", "resumed": "stopped run resumed", "reused": "finished run reused"}
"""How a round's replies were had, in the words of its result line."""


def settings_line(plan: StarPlan, reasoning: str = "") -> str:
    """The teacher, attempts and sampling settings, said before the first round.

    Args:
        plan: the build.
        reasoning: the reasoning options set, as a run line names them (" thinking=on").
    """
    spec = plan.spec
    return (
        f"{spec.task} on {spec.model}: up to {plan.attempts} attempts, "
        f"max_tokens={spec.generate.max_tokens} temperature={spec.generate.temperature} "
        f"concurrency={spec.concurrency}{reasoning} teacher_reasoning={plan.teacher_reasoning}"
        + (f" limit={spec.limit}" if spec.limit is not None else "")
    )


def stopped_note(run_id: str | None) -> str:
    """What an interrupted build keeps (the round under way is `run_id`, if it began)."""
    where = f" (run {run_id})" if run_id else ""
    return f"Finished replies are stored{where}: the same command goes on where it stopped."


def result_lines(result: StarResult) -> list[str]:
    """The folder and each round's count; then the train split, the thinking, the tests."""
    star = result.manifest.star
    assert star is not None  # build_star_data always writes the section
    tests = ", ".join(
        f"{split} {count}" for split, count in result.manifest.counts.items() if split != "train"
    )
    return [
        f"STaR data in {result.folder} (teacher {star.teacher})",
        *(round_line(report) for report in result.rounds),
        f"  train: {star.kept} with the teacher's reasoning, {star.fallbacks} with the plain "
        "target (no attempt right)",
        f"  teacher's thinking: {thinking_line(star.teacher_reasoning, star.kept_with_thinking)}",
        f"  copied unchanged: {tests or 'no test split'}; data hash "
        f"{result.manifest.data_hash[:16]}",
    ]


def result_json(result: StarResult) -> dict[str, JsonValue]:
    """The build as JSON: its folder, its rounds and the folder's manifest."""
    rounds: list[JsonValue] = [report.model_dump(mode="json") for report in result.rounds]
    manifest = result.manifest.model_dump(mode="json", exclude_none=True)
    return {"folder": str(result.folder), "rounds": rounds, **manifest}


def thinking_line(teacher_reasoning: TeacherReasoning, with_thinking: int) -> str:
    """What became of a reasoning teacher's thinking in the kept targets."""
    if with_thinking == 0:
        return "none in the kept replies (keep and drop give the same targets)"
    if teacher_reasoning == "keep":
        return f"kept: {with_thinking} targets open with it as the chain of thought"
    return f"dropped from {with_thinking} targets (--teacher-reasoning keep keeps it)"


def round_line(report: RoundReport) -> str:
    """One attempt: how many it got right, and whether it ran now, resumed or was reused."""
    summary = report.round
    ran = f", {report.ran} run now" if report.how != "reused" else ""
    cached = f", {report.cache_hits} from the cache" if report.cache_hits else ""
    return (
        f"  attempt {summary.attempt}: {summary.kept} of {summary.items} right "
        f"(run {summary.run_id}: {HOW[report.how]}{ran}{cached})"
    )
