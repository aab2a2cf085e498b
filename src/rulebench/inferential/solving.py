"""Turning a reply (or candidate likelihoods) into an Outcome: answer, score and evidence."""

from collections.abc import Callable, Sequence

from rulebench.core.errors import ConfigError
from rulebench.core.items import Item, Outcome
from rulebench.core.rules import Sample
from rulebench.engine.task import Session
from rulebench.inferential.citation import cited_rule
from rulebench.inferential.judge import judge
from rulebench.inferential.registry import task_definition

LOGLIK_SCORINGS = ("loglik", "loglik-norm")
"""Log-likelihood scorings: by the sum over the answer's tokens (`loglik`, lm-eval's `acc`), or
by that sum per character of the written answer (`loglik-norm`, lm-eval's `acc_norm`)."""


def judge_reply(
    reply: str,
    sample: Sample,
    mode: str,
    charges: Sequence[str],
    cite: Callable[[str], int | None] = cited_rule,
) -> Outcome:
    """Score by `mode`; keep both modes' judgements and the cited rule for re-scoring later.

    `cite` reads the cited rule's listed position (upstream prompts teach their own format).
    """
    judgements = {m: judge(sample.task, reply, sample, m, charges) for m in ("paper", "robust")}
    chosen = judgements[mode]
    return Outcome(
        answer=chosen.answer,
        score=None if chosen.refused else float(chosen.correct),
        details={
            "extract": mode,
            "scoring": "generate",
            "cited_rule": cite(reply),
            **{m: j.model_dump(mode="json") for m, j in judgements.items()},
        },
    )


def check_scoring(scoring: str, tasks: Sequence[str]) -> None:
    """Refuse log-likelihood scoring for a task whose samples carry no candidate answers.

    Such items would otherwise be generated and judged while the run says log-likelihood.

    Raises:
        ConfigError: naming the first such task.
    """
    if scoring not in LOGLIK_SCORINGS:
        return
    for task in tasks:
        if not task_definition(task).has_candidates:
            raise ConfigError(
                f"--scoring {scoring}: task '{task}' has open answers (no candidate answers to "
                "rank by log-likelihood); use --scoring generate for it"
            )


async def pick_by_loglik(
    session: Session,
    item: Item,
    sample: Sample,
    write_answer: Callable[[str], str],
    scoring: str = "loglik",
) -> Outcome:
    """The candidate whose written answer the model finds most likely is its answer.

    Both choices are stored with every item (the sum's and the per-character one's), so a run
    can be read either way; `scoring` says which decides the score.
    """
    replies = [write_answer(candidate) for candidate in item.choices]
    scores = await session.score_choices(item.messages, replies)
    # lm-eval's acc_norm divides by the continuation's length in characters (its default).
    per_char = [score / max(1, len(reply)) for score, reply in zip(scores, replies, strict=True)]
    picks = {
        "sum": item.choices[max(range(len(scores)), key=scores.__getitem__)],
        "norm": item.choices[max(range(len(per_char)), key=per_char.__getitem__)],
    }
    answer = picks["norm" if scoring == "loglik-norm" else "sum"]
    return Outcome(
        answer=answer,
        score=float(answer.lower() == sample.gold.lower()),
        details={
            "scoring": scoring,
            "loglik": dict(zip(item.choices, scores, strict=True)),
            **{
                f"loglik_{way}": {"answer": pick, "correct": pick.lower() == sample.gold.lower()}
                for way, pick in picks.items()
            },
        },
    )
