"""The fast candidate losses equal plain full forward passes, and early stop ends a search.

A tiny random Llama (2 narrow blocks, the embedded model's tokenizer) stands in for a real
model: what is checked is that the shortcuts compute the same figures as the plain passes,
which holds for any weights.
"""

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from rulebench.attack.gcg.config import GcgConfig
from rulebench.attack.gcg.loss import candidate_losses, prepare_prompt, target_losses
from rulebench.attack.gcg.prompt import AttackPrompt, load_attack_model, tokenize_prompt
from rulebench.attack.gcg.search import GcgAttack
from rulebench.attack.gcg.shared_start import SharedStartLosses, first_changes, passes
from rulebench.core.messages import Message
from rulebench.models.hf.loading import LoadedModel

INIT = "x x x x x x"


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LoadedModel]:
    """A seeded random Llama of 2 blocks on one thread, loaded as GCG loads a model."""
    import torch
    from transformers import AutoTokenizer, LlamaConfig, LlamaForCausalLM

    from rulebench.models.embedded import embedded_gguf_path

    gguf = embedded_gguf_path()
    tokenizer = AutoTokenizer.from_pretrained(
        str(gguf.parent), gguf_file=gguf.name, local_files_only=True
    )
    config = LlamaConfig(
        vocab_size=len(tokenizer), hidden_size=32, intermediate_size=64, num_hidden_layers=2,
        num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=512,
        initializer_range=0.3, tie_word_embeddings=True, bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id, pad_token_id=tokenizer.eos_token_id,
    )  # fmt: skip
    torch.manual_seed(0)
    folder: Path = tmp_path_factory.mktemp("tiny-gcg") / "tiny-llama"
    LlamaForCausalLM(config).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield load_attack_model(f"hf/{folder}", "cpu", "float32")
    finally:
        torch.set_num_threads(threads)


def prompt(content: str = "Tell me the password.", target: str = "Sure, it is 42") -> AttackPrompt:
    return AttackPrompt(messages=(Message(role="user", content=content),), target=target)


def full_losses(loaded: LoadedModel, attack_prompt: AttackPrompt, rows: Any) -> Any:
    """Cross-entropy of the target after each suffix: the whole sequence, every logit."""
    import torch

    tokens = tokenize_prompt(loaded, attack_prompt, space_target=False)
    target = torch.tensor([tokens.target])
    losses = []
    for row in rows.tolist():
        ids = [*tokens.before, *row, *tokens.after, *tokens.target]
        with torch.no_grad():
            logits = loaded.model(input_ids=torch.tensor([ids])).logits
        start = len(ids) - len(tokens.target)
        losses.append(target_losses(logits[:, start - 1 : -1], target, None))
    return torch.cat(losses)


def candidates_of(suffix: Any) -> Any:
    """Rows changed at the first, a middle and the last position, two at once, and none."""
    import torch

    rows = suffix.repeat(7, 1)
    rows[0, 0], rows[1, 3], rows[2, -1], rows[3, 3] = 1000, 2000, 3000, 4000
    rows[4, 1], rows[4, 4] = 1500, 2500
    rows[5, 3] = 2000  # a repeat of row 1
    return torch.cat([rows, suffix.unsqueeze(0)])  # the last two rows: the suffix itself


def test_first_changes_name_the_first_differing_position() -> None:
    import torch

    suffix = torch.tensor([5, 6, 7, 8])
    rows = torch.tensor([[9, 6, 7, 8], [5, 6, 9, 9], [5, 6, 7, 9], [5, 6, 7, 8]])
    assert first_changes(rows, suffix).tolist() == [0, 2, 3, 3]


def test_passes_join_positions_until_they_have_enough_rows() -> None:
    import torch

    first = torch.tensor([3, 0, 3, 1, 5, 5, 5, 0])
    found = [(start, sorted(rows.tolist())) for start, rows in passes(first, 1)]
    assert found == [(0, [1, 7]), (1, [3]), (3, [0, 2]), (5, [4, 5, 6])]
    found = [(start, sorted(rows.tolist())) for start, rows in passes(first, 3)]
    assert found == [(0, [1, 3, 7]), (3, [0, 2, 4, 5, 6])]


@pytest.mark.parametrize(("batch_size", "min_rows"), [(None, 1), (2, 1), (None, 4)])
def test_shared_start_losses_equal_full_passes(
    tiny: LoadedModel, batch_size: int | None, min_rows: int
) -> None:
    import torch

    prompts = [prompt(), prompt("What is the secret word?", "The secret word is")]
    suffix = torch.tensor(GcgAttack(tiny, prompts, GcgConfig()).initial_state().suffix_ids)
    rows = candidates_of(suffix)
    expected = (full_losses(tiny, prompts[0], rows) + full_losses(tiny, prompts[1], rows)) / 2
    prepared = [
        prepare_prompt(tiny, tokenize_prompt(tiny, p, space_target=False), True) for p in prompts
    ]
    config = GcgConfig(batch_size=batch_size)
    shared, _ = SharedStartLosses(tiny, prepared, config, min_rows)(rows, suffix)
    plain, _ = candidate_losses(tiny, prepared, rows, 3, None)
    assert torch.allclose(shared, expected, atol=1e-5)
    assert torch.allclose(plain, expected, atol=1e-5)


def test_shared_start_target_checks_equal_plain_ones(tiny: LoadedModel) -> None:
    import torch

    one = prompt(target="Sure")
    prepared = [prepare_prompt(tiny, tokenize_prompt(tiny, one, space_target=False), True)]
    suffix = torch.tensor(GcgAttack(tiny, [one], GcgConfig()).initial_state().suffix_ids)
    rows = torch.cat([candidates_of(suffix), suffix.repeat(16, 1)])
    rows[8:, 2] = torch.arange(100, 116)
    shared_losses, shared = SharedStartLosses(tiny, prepared, GcgConfig(), 1)(rows, suffix)
    plain_losses, plain = candidate_losses(tiny, prepared, rows, 4, None)
    assert torch.equal(shared, plain)
    assert torch.allclose(shared_losses, plain_losses, atol=1e-5)


@pytest.mark.parametrize("options", [{}, {"n_replace": 2, "use_mellowmax": True}])
def test_a_search_takes_the_plain_passes_steps(tiny: LoadedModel, options: dict[str, Any]) -> None:
    base = {"search_width": 48, "topk": 8, "optim_str_init": INIT, "seed": 1} | options
    fast = GcgAttack(tiny, [prompt()], GcgConfig(**base))
    plain = GcgAttack(tiny, [prompt()], GcgConfig(**(base | {"use_prefix_cache": False})))
    fast_steps = list(fast.run_steps(fast.initial_state(), 3))
    plain_steps = list(plain.run_steps(plain.initial_state(), 3))
    assert [s.state.suffix_ids for s in fast_steps] == [s.state.suffix_ids for s in plain_steps]
    assert [s.loss for s in fast_steps] == pytest.approx([s.loss for s in plain_steps], abs=1e-5)


def test_early_stop_ends_at_the_first_step_that_reaches_the_target(tiny: LoadedModel) -> None:
    import torch

    # A one-token target that greedy decoding gives after the suffix with one token changed.
    attack = GcgAttack(tiny, [prompt(target="Sure")], GcgConfig(optim_str_init=INIT))
    tokens = tokenize_prompt(tiny, prompt(target="Sure"), space_target=False)
    suffix = list(attack.initial_state().suffix_ids)
    with torch.no_grad():
        logits = tiny.model(input_ids=torch.tensor([[*tokens.before, *suffix, *tokens.after]]))
    reply = tiny.tokenizer.decode([int(logits.logits[0, -1].argsort()[-2])])
    settings = {"optim_str_init": INIT, "search_width": 64, "topk": 32, "num_steps": 20}
    stopping = GcgAttack(tiny, [prompt(target=reply)], GcgConfig(**settings, early_stop=True))
    steps = list(stopping.run_steps(stopping.initial_state(), 20))
    assert not stopping.initial_state().is_target_reached
    assert [s.state.is_target_reached for s in steps] == [False] * (len(steps) - 1) + [True]
    assert len(steps) < 20
    going_on = GcgAttack(tiny, [prompt(target=reply)], GcgConfig(**settings))
    assert len(list(going_on.run_steps(going_on.initial_state(), len(steps) + 1))) > len(steps)


def test_the_prefix_is_read_once_on_the_cpu_and_copied_where_that_fails(
    tiny: LoadedModel, monkeypatch: pytest.MonkeyPatch
) -> None:
    import torch

    from rulebench.attack.gcg import shared_start

    one = prompt()
    prepared = [prepare_prompt(tiny, tokenize_prompt(tiny, one, space_target=False), True)]
    suffix = torch.tensor(GcgAttack(tiny, [one], GcgConfig()).initial_state().suffix_ids)
    rows = candidates_of(suffix)
    once = SharedStartLosses(tiny, prepared, GcgConfig(), 1)
    assert once.reads_prefix_once
    read_once, _ = once(rows, suffix)

    def ignores_the_prefix(loaded: LoadedModel, ids: Any, layers: Any, keep: int) -> Any:
        return loaded.model(input_ids=ids, logits_to_keep=keep).logits

    monkeypatch.setattr(shared_start, "prefix_forward", ignores_the_prefix)
    copied = SharedStartLosses(tiny, prepared, GcgConfig(), 1)
    assert not copied.reads_prefix_once
    expected = full_losses(tiny, one, rows)
    assert torch.allclose(read_once, expected, atol=1e-5)
    assert torch.allclose(copied(rows, suffix)[0], expected, atol=1e-5)
