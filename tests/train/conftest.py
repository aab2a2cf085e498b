"""IRFT test data and a tiny model to tune, built once per session."""

from pathlib import Path

import pytest

from rulebench.train.data import write_dataset
from rulebench.train.examples import DataConfig

from tests.train.tiny_runs import TINY_LAYERS


@pytest.fixture(scope="session")
def tiny_data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A few examples: enough for a handful of optimizer steps and an eval loss."""
    folder = tmp_path_factory.mktemp("irft-data") / "data"
    write_dataset(DataConfig(limit=12, per_group=4, seed=7), folder)
    return folder


@pytest.fixture(scope="session")
def tiny_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A Llama of 4 narrow blocks, seeded random weights, the embedded model's tokenizer.

    Tuning it runs the same code as tuning the embedded model (trl, peft, checkpoints, resume,
    merge) with the same tokens per step, at a small part of the cost of a step: the tests of
    how runs are stopped, resumed and recorded do not need a model that knows anything. The
    tokenizer is read from the embedded GGUF itself, which spares the conversion of its
    weights.
    """
    import torch
    from transformers import AutoTokenizer, LlamaConfig, LlamaForCausalLM

    from rulebench.models.embedded import embedded_gguf_path

    gguf = embedded_gguf_path()
    tokenizer = AutoTokenizer.from_pretrained(
        str(gguf.parent), gguf_file=gguf.name, local_files_only=True
    )
    config = LlamaConfig(
        vocab_size=len(tokenizer),
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=TINY_LAYERS,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=1024,
        tie_word_embeddings=True,
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id or tokenizer.eos_token_id,
    )
    torch.manual_seed(0)
    folder = tmp_path_factory.mktemp("tiny-model") / "tiny-llama"
    LlamaForCausalLM(config).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder
