"""Reading a criminal charge (CAIL2018: law, law-cf) out of a reply.

The released scorer needs the list of all charge names (every law gold label, train and test) to
delete longer names before looking for the gold. Callers pass it as `charges`; when they pass
none, this sample's candidates plus its gold stand in, which reproduces the paper's decision
whenever the reply names only those charges (a longer non-candidate charge containing the gold,
such as 合同诈骗 for 诈骗, is then not deleted and paper mode may score it right).
"""

import functools
import json
import re
from collections.abc import Callable, Sequence
from typing import NamedTuple

from rulebench.core.rules import Sample
from rulebench.inferential.definition import Judges
from rulebench.inferential.extraction import Judgement, bind, run_steps

CHARGE_KEY = "指控"
"""The JSON key the law-cf prompt asks the model to put its charge under."""

_JSON_OBJECT = re.compile(r"\{[^{}]*\}")


class ChargeVocabulary(NamedTuple):
    """The charge names robust mode knows about, for one sample."""

    names: tuple[str, ...]
    """Every known charge name: a longer name is matched before the shorter ones inside it."""
    candidates: frozenset[str]
    """The charges that count as answers (the sample's candidates when it has them)."""


def deletion_list(sample: Sample, charges: Sequence[str]) -> tuple[str, ...]:
    """The names the deletion walk uses: `charges`, else the sample's candidates and gold."""
    names = charges or (*sample.candidates, sample.gold)
    return tuple(dict.fromkeys(name.strip() for name in names if name.strip()))


def paper_law_correct(reply: str, gold: str, charges: Sequence[str]) -> bool:
    """The released decision: delete charges longest first, stop at the gold, look for the gold.

    Quirks kept: naming several charges still scores, and a longer charge containing the gold
    (合同诈骗 for gold 诈骗) is deleted first, so it scores wrong. Names of equal length are
    deleted in the order given.
    """
    text = reply
    for charge in sorted(charges, key=len, reverse=True):
        if charge == gold:
            break
        text = text.replace(charge, "")
    return bool(gold) and gold in text


def paper_law_cf_correct(reply: str, gold: str) -> tuple[bool, str | None]:
    """The released law-cf decision, with the charge it read when the reply was JSON.

    The whole reply must parse as a JSON object with key 指控 (no code fence, no text around
    it), and then the value must equal the gold exactly; on any failure the gold merely has to
    occur somewhere in the reply, alongside any other charges.
    """
    try:
        value = json.loads(reply)[CHARGE_KEY]
    except (ValueError, TypeError, KeyError, RecursionError):
        return bool(gold) and gold in reply, None
    return value == gold, value if isinstance(value, str) else json.dumps(value)


@functools.lru_cache(maxsize=64)
def _charge_pattern(names: tuple[str, ...]) -> re.Pattern[str]:
    return re.compile("|".join(re.escape(name) for name in sorted(names, key=len, reverse=True)))


def charges_named_longest_first(text: str, names: tuple[str, ...]) -> list[str]:
    """Fix: a longer charge containing the gold (合同诈骗 for 诈骗) is not a mention of the gold.

    Charges are read left to right, the longest name at each position, without overlaps, so
    the 诈骗 inside 合同诈骗 is not counted, whether or not 合同诈骗 is a candidate.
    """
    if not names:
        return []
    return _charge_pattern(names).findall(text)


# Chinese and English denials; the denied charges follow, up to six characters or four words
# later ("不构成刑法规定的盗窃罪", "not guilty of 盗窃"), or precede a verdict ("盗窃罪不成立").
# Not 排除 before a charge: judgements say 排除合理怀疑 ("beyond reasonable doubt").
_NEGATION = (
    r"(?:不是|并非|而非|不构成|不属于|不涉及|不符合|未构成|没有构成|不能构成"
    r"|不(?:应当?|能|宜)?(?:认定|定性|定)为?"
    r"|\b(?:not|never|[a-z]+n['’]t|rather\s+than|instead\s+of|other\s+than)\b)"
)
_FILLER = (
    r"(?:[^，。；、,;.!?！？\s\"“”'而但是]{0,6}?"
    r"|(?:\s+(?!(?:but|so|it|rather|instead|however)\b)[a-z]+){0,4}?\s*)"
)
_LIST_JOIN = r"(?:\s*(?:、|和|或者?|以及|及|与|/|,?\s*(?:or|nor|and)\b)\s*)"
_VERDICT = r"(?:不成立|不能成立|不适用|被排除|是错误的|不正确)"


@functools.lru_cache(maxsize=64)
def _denial_pattern(names: tuple[str, ...]) -> re.Pattern[str]:
    charge = "(?:" + "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True)) + ")罪?"
    # At most six charges in one denial: an unbounded list makes a looping reply quadratic.
    charges = rf"{charge}(?:{_LIST_JOIN}{charge}){{0,5}}"
    return re.compile(rf"{_NEGATION}{_FILLER}{charges}|{charges}\s*{_VERDICT}", re.IGNORECASE)


def drop_denied_charges(reply: str, vocabulary: ChargeVocabulary) -> str:
    """Fix: a denied charge counts as named ("不是盗窃罪，而是抢劫罪" is right for gold 盗窃).

    Each denial ("不是", "不构成", "而非", "not", "rather than", "...不成立") is removed with
    the charges it denies, so only affirmed charges are read: when the affirmed one is not a
    candidate (or not a known charge at all) the reply has no answer, never the denied one.
    """
    if not vocabulary.names:
        return reply
    return _denial_pattern(vocabulary.names).sub(" ", reply)


def single_candidate_charge(reply: str, vocabulary: ChargeVocabulary) -> str | None:
    """Fix: paper mode scores a reply naming several charges right if one of them is the gold.

    The answer is the one candidate charge the reply names (any number of times); a reply that
    names two or more candidates, or none, has no answer.
    """
    named = set(charges_named_longest_first(reply, vocabulary.names)) & vocabulary.candidates
    return named.pop() if len(named) == 1 else None


def _json_charge(reply: str) -> str | None:
    texts = [reply.strip(), *(found.group() for found in _JSON_OBJECT.finditer(reply))]
    for text in texts:
        try:
            value = json.loads(text)
        except (ValueError, RecursionError):
            continue
        if isinstance(value, dict) and isinstance(value.get(CHARGE_KEY), str):
            return str(value[CHARGE_KEY]).strip()
    return None


def charge_in_json_field(reply: str, vocabulary: ChargeVocabulary) -> str | None:
    """Fix: paper law-cf reads 指控 only when the whole reply is JSON, and needs an exact value.

    A JSON object in a code fence or among other text counts, and its value is read as the one
    candidate it names (`盗窃罪` reads as 盗窃); a value naming none is the answer as written.
    """
    value = _json_charge(reply)
    if value is None:
        return None
    return single_candidate_charge(value, vocabulary) or value


def vocabulary_for(sample: Sample, charges: Sequence[str]) -> ChargeVocabulary:
    """Candidates are the sample's own when it has them, else every known charge."""
    names = deletion_list(sample, charges)
    candidates = deletion_list(sample, ()) if sample.candidates else names
    return ChargeVocabulary(tuple(dict.fromkeys((*names, *candidates))), frozenset(candidates))


LAW_STEPS = (single_candidate_charge,)
LAW_CF_STEPS = (charge_in_json_field, single_candidate_charge)
LAW_FIXES: tuple[str, ...] = (
    drop_denied_charges.__name__,
    charges_named_longest_first.__name__,
    single_candidate_charge.__name__,
)
LAW_CF_FIXES: tuple[str, ...] = (LAW_FIXES[0], charge_in_json_field.__name__, *LAW_FIXES[1:])
"""In the order they apply: denials are dropped before the JSON field is read."""


def _judge_robust(
    steps: Sequence[Callable[[str, ChargeVocabulary], str | None]],
    reply: str,
    sample: Sample,
    charges: Sequence[str],
) -> Judgement:
    vocabulary = vocabulary_for(sample, charges)
    reply = drop_denied_charges(reply, vocabulary)
    answer = run_steps((bind(step, vocabulary) for step in steps), reply)
    return Judgement(answer=answer, correct=answer == sample.gold.strip())


def judge_paper(reply: str, sample: Sample, charges: Sequence[str]) -> Judgement:
    """Paper mode for law: the deletion walk; the answer shown is the gold or the first charge."""
    gold = sample.gold.strip()
    names = deletion_list(sample, charges)
    if paper_law_correct(reply, gold, names):
        return Judgement(answer=gold, correct=True)
    named = charges_named_longest_first(reply, names)
    return Judgement(answer=named[0] if named else None, correct=False)


def judge_paper_cf(reply: str, sample: Sample, charges: Sequence[str]) -> Judgement:
    """Paper mode for law-cf: the JSON field, else the gold anywhere in the reply."""
    gold = sample.gold.strip()
    correct, value = paper_law_cf_correct(reply, gold)
    if value is None:
        named = charges_named_longest_first(reply, deletion_list(sample, charges))
        value = gold if correct else (named[0] if named else None)
    return Judgement(answer=value, correct=correct)


def judge_robust(reply: str, sample: Sample, charges: Sequence[str]) -> Judgement:
    """Robust mode for law: denials dropped, then exactly one candidate charge named."""
    return _judge_robust(LAW_STEPS, reply, sample, charges)


def judge_robust_cf(reply: str, sample: Sample, charges: Sequence[str]) -> Judgement:
    """Robust mode for law-cf: denials dropped, the JSON field read leniently, else one named."""
    return _judge_robust(LAW_CF_STEPS, reply, sample, charges)


JUDGES = Judges(judge_paper, judge_robust, LAW_FIXES)
"""law's judging: the paper reading walks the charge list."""
CF_JUDGES = Judges(judge_paper_cf, judge_robust_cf, LAW_CF_FIXES)
"""law-cf's judging: JSON answers first."""
