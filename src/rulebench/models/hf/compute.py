"""The torch work of the hf backend: batched greedy or sampled generation and choice scoring.

Run only on the hf worker thread. Batches are left-padded so every row's next token sits in
the last column; rows are sorted by prompt length so equal lengths sit together.
"""

import random
from collections.abc import Callable, Sequence
from typing import Any

from rulebench.core.errors import ModelError
from rulebench.core.messages import GenerateConfig
from rulebench.models.base import ChoiceScores, count_scoring_tokens
from rulebench.models.hf.loading import LoadedModel
from rulebench.models.local_chat import Generated, cut_at_stop


def encode(loaded: LoadedModel, text: str) -> list[int]:
    """Tokenize rendered chat text; its special tokens come from the template, none are added."""
    ids: list[int] = loaded.tokenizer(text, add_special_tokens=False)["input_ids"]
    return ids


def left_pad(loaded: LoadedModel, rows: Sequence[Sequence[int]]) -> tuple[Any, Any]:
    """Left-pad token rows into input ids and attention mask tensors on the model's device."""
    import torch

    width = max(len(row) for row in rows)
    pad = loaded.tokenizer.pad_token_id
    ids = [[pad] * (width - len(row)) + list(row) for row in rows]
    mask = [[0] * (width - len(row)) + [1] * len(row) for row in rows]
    device = loaded.device
    return torch.tensor(ids, device=device), torch.tensor(mask, device=device)


def sampling_options(config: GenerateConfig) -> dict[str, Any]:
    """Translate the config into generate() options: greedy at temperature 0, else seeded."""
    import torch

    if config.temperature == 0:
        return {"do_sample": False}
    # One seed per batch: rows of a batch draw from one generator, so a sampled reply depends
    # on its batch-mates; greedy replies do not.
    torch.manual_seed(config.seed if config.seed is not None else random.getrandbits(32))
    return {"do_sample": True, "temperature": config.temperature, "top_p": config.top_p, "top_k": 0}


def generate(
    loaded: LoadedModel,
    prompts: Sequence[list[int]],
    config: GenerateConfig,
    is_stopping: Callable[[], bool] = lambda: False,
) -> list[Generated]:
    """Generate replies to token prompts in one batch; results in the order of `prompts`.

    `is_stopping` is asked after every token: once true, generation ends there and the batch
    fails (a cut reply must never pass for a whole one), so closing the worker never waits
    for a long batch, nor frees the model under it.

    Raises:
        ModelError: the worker is stopping.
    """
    import torch

    order = sorted(range(len(prompts)), key=lambda i: len(prompts[i]))
    ids, mask = left_pad(loaded, [prompts[i] for i in order])
    options = sampling_options(config)
    if config.stop:
        options.update(stop_strings=list(config.stop), tokenizer=loaded.tokenizer)
    with torch.inference_mode():
        output = loaded.model.generate(
            input_ids=ids, attention_mask=mask, max_new_tokens=config.max_tokens,
            pad_token_id=loaded.tokenizer.pad_token_id,
            eos_token_id=sorted(loaded.eos_token_ids),
            stopping_criteria=_halting_when(is_stopping), **options,
        )  # fmt: skip
    if is_stopping():
        raise ModelError("hf: the model was freed while generating")
    new_tokens = output[:, ids.shape[1] :].tolist()
    results: list[Generated | None] = [None] * len(prompts)
    for row, index in enumerate(order):
        results[index] = finish_row(loaded, new_tokens[row], config, len(prompts[index]))
    return [r for r in results if r is not None]


def _halting_when(is_stopping: Callable[[], bool]) -> Any:
    """Transformers stopping criteria that end every row once `is_stopping()` is true."""
    import torch
    from transformers import StoppingCriteria, StoppingCriteriaList

    class Halt(StoppingCriteria):
        def __call__(self, input_ids: Any, scores: Any, **kwargs: Any) -> Any:
            halted = is_stopping()
            return torch.full(
                (input_ids.shape[0],), halted, dtype=torch.bool, device=input_ids.device
            )

    return StoppingCriteriaList([Halt()])


def finish_row(
    loaded: LoadedModel, tokens: list[int], config: GenerateConfig, prompt_tokens: int
) -> Generated:
    """Cut one generated row at its first end token or stop string and count what remains."""
    finish = "length"
    for position, token in enumerate(tokens):
        if token in loaded.eos_token_ids:
            tokens, finish = tokens[:position], "stop"
            break
    decode = loaded.tokenizer.decode
    text, stopped = cut_at_stop(decode(tokens, skip_special_tokens=True), config.stop)
    if stopped:
        finish = "stop"
        tokens = tokens[: tokens_until_stop(decode, tokens, config.stop)]
    return Generated(text, prompt_tokens, len(tokens), finish)


def tokens_until_stop(decode: Any, tokens: list[int], stops: Sequence[str]) -> int:
    """Fewest leading tokens whose text holds a stop string (binary search: it only grows)."""
    low, high = 1, len(tokens)
    while low < high:
        middle = (low + high) // 2
        if cut_at_stop(decode(tokens[:middle], skip_special_tokens=True), stops)[1]:
            high = middle
        else:
            low = middle + 1
    return high


def choice_tokens(loaded: LoadedModel, prompt: str, choices: Sequence[str]) -> list[list[int]]:
    """Each choice's tokens as they follow the prompt (see llamacpp_decode.split_continuations)."""
    prompt_ids = encode(loaded, prompt)
    result = []
    for choice in choices:
        joined = encode(loaded, prompt + choice)
        if joined[: len(prompt_ids)] == prompt_ids:
            suffix = joined[len(prompt_ids) :]
        else:
            suffix = encode(loaded, choice)
        if not suffix:
            raise ModelError(f"hf: choice {choice!r} tokenizes to nothing; it cannot be scored")
        result.append(suffix)
    return result


def score(
    loaded: LoadedModel, prompt: str, choices: Sequence[str], batch_size: int
) -> ChoiceScores:
    """Sum each choice's token log-probabilities after the prompt, `batch_size` choices a pass."""
    prompt_ids = encode(loaded, prompt)
    continuations = choice_tokens(loaded, prompt, choices)
    scores: list[float] = []
    for start in range(0, len(continuations), batch_size):
        scores.extend(_score_batch(loaded, prompt_ids, continuations[start : start + batch_size]))
    return ChoiceScores(
        scores, count_scoring_tokens(len(prompt_ids), [len(c) for c in continuations])
    )


def _score_batch(
    loaded: LoadedModel, prompt_ids: list[int], continuations: list[list[int]]
) -> list[float]:
    import torch

    ids, mask = left_pad(loaded, [prompt_ids + c for c in continuations])
    # Left padding puts every choice at the end, so only the last positions' logits are
    # needed (a full batch x length x vocab tensor is gigabytes for long prompts).
    keep = max(len(c) for c in continuations) + 1
    positions = (mask.cumsum(-1) - 1).clamp(min=0)
    with torch.inference_mode():
        logits = loaded.model(
            input_ids=ids, attention_mask=mask, position_ids=positions,
            logits_to_keep=keep, use_cache=False,
        ).logits  # fmt: skip
        logprobs = torch.log_softmax(logits.float(), dim=-1)
    scores = []
    for row, tokens in enumerate(continuations):
        start = keep - len(tokens) - 1
        picked = logprobs[row, start : keep - 1].gather(-1, torch.tensor(tokens)[:, None].to(ids))
        scores.append(float(picked.sum()))
    return scores
