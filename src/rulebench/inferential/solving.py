"""Turning a reply (or candidate likelihoods) into an Outcome: answer, score and evidence."""

from collections.abc import Callable, Sequence

from rulebench.core.items import Item, Outcome
from rulebench.core.rules import Sample
from rulebench.engine.task import Session
from rulebench.inferential.extraction.citation import cited_rule
from rulebench.inferential.extraction.judge import judge


def judge_reply(reply: str, sample: Sample, mode: str, charges: Sequence[str]) -> Outcome:
    """Score by `mode`; keep both modes' judgements and the cited rule for re-scoring later."""
    judgements = {m: judge(sample.task, reply, sample, m, charges) for m in ("paper", "robust")}
    chosen = judgements[mode]
    return Outcome(
        answer=chosen.answer,
        score=None if chosen.refused else float(chosen.correct),
        details={
            "extract": mode,
            "scoring": "generate",
            "cited_rule": cited_rule(reply),
            **{m: j.model_dump(mode="json") for m, j in judgements.items()},
        },
    )


async def pick_by_loglik(
    session: Session, item: Item, sample: Sample, write_answer: Callable[[str], str]
) -> Outcome:
    """The candidate whose written answer the model finds most likely is its answer."""
    replies = [write_answer(candidate) for candidate in item.choices]
    scores = await session.score_choices(item.messages, replies)
    best = max(range(len(scores)), key=scores.__getitem__)
    answer = item.choices[best]
    return Outcome(
        answer=answer,
        score=float(answer.lower() == sample.gold.lower()),
        details={"scoring": "loglik", "loglik": dict(zip(item.choices, scores, strict=True))},
    )
