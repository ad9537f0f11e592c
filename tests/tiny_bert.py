"""A tiny random BERT-layout model folder, so the loader is tested without the 90 MB weights."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from tui_course.maths.encoder import EncoderConfig, EncoderWeights, LayerWeights

CONFIG = EncoderConfig(
    vocab_size=20,
    hidden_size=8,
    num_layers=2,
    num_heads=2,
    intermediate_size=16,
    max_positions=12,
    type_vocab_size=2,
    layer_norm_eps=1e-12,
)


def random_weights(config: EncoderConfig, seed: int = 0) -> EncoderWeights:
    rng = np.random.default_rng(seed)
    hidden, inner = config.hidden_size, config.intermediate_size

    def tensor(*shape: int) -> NDArray[np.float32]:
        return rng.normal(0.0, 0.5, shape).astype(np.float32)

    def layer() -> LayerWeights:
        return LayerWeights(
            tensor(hidden, hidden),
            tensor(hidden),
            tensor(hidden, hidden),
            tensor(hidden),
            tensor(hidden, hidden),
            tensor(hidden),
            tensor(hidden, hidden),
            tensor(hidden),
            1.0 + tensor(hidden),
            tensor(hidden),
            tensor(inner, hidden),
            tensor(inner),
            tensor(hidden, inner),
            tensor(hidden),
            1.0 + tensor(hidden),
            tensor(hidden),
        )

    return EncoderWeights(
        tensor(config.vocab_size, hidden),
        tensor(config.max_positions, hidden),
        tensor(config.type_vocab_size, hidden),
        1.0 + tensor(hidden),
        tensor(hidden),
        tuple(layer() for _ in range(config.num_layers)),
    )


VOCAB = [
    "[PAD]",
    "[UNK]",
    "[CLS]",
    "[SEP]",
    "[MASK]",
    "the",
    "cat",
    "sat",
    "on",
    "mat",
    "it",
    "was",
    "tired",
    "un",
    "##like",
    "##ly",
    "dog",
    "a",
    ".",
    "'",
]
TINY = EncoderConfig(
    vocab_size=len(VOCAB),
    hidden_size=8,
    num_layers=2,
    num_heads=2,
    intermediate_size=16,
    max_positions=12,
)


def tensors_of(weights: EncoderWeights, prefix: str = "") -> dict[str, np.ndarray]:
    names = {
        "embeddings.word_embeddings.weight": weights.word_embeddings,
        "embeddings.position_embeddings.weight": weights.position_embeddings,
        "embeddings.token_type_embeddings.weight": weights.token_type_embeddings,
        "embeddings.LayerNorm.weight": weights.embedding_norm_weight,
        "embeddings.LayerNorm.bias": weights.embedding_norm_bias,
    }
    parts = {
        "attention.self.query.weight": "query_weight",
        "attention.self.query.bias": "query_bias",
        "attention.self.key.weight": "key_weight",
        "attention.self.key.bias": "key_bias",
        "attention.self.value.weight": "value_weight",
        "attention.self.value.bias": "value_bias",
        "attention.output.dense.weight": "attention_output_weight",
        "attention.output.dense.bias": "attention_output_bias",
        "attention.output.LayerNorm.weight": "attention_norm_weight",
        "attention.output.LayerNorm.bias": "attention_norm_bias",
        "intermediate.dense.weight": "intermediate_weight",
        "intermediate.dense.bias": "intermediate_bias",
        "output.dense.weight": "output_weight",
        "output.dense.bias": "output_bias",
        "output.LayerNorm.weight": "output_norm_weight",
        "output.LayerNorm.bias": "output_norm_bias",
    }
    for index, layer in enumerate(weights.layers):
        for name, field in parts.items():
            names[f"encoder.layer.{index}.{name}"] = getattr(layer, field)
    return {prefix + name: np.ascontiguousarray(value) for name, value in names.items()}


def config_json(config: EncoderConfig) -> dict[str, object]:
    return {
        "architectures": ["BertModel"],
        "model_type": "bert",
        "hidden_act": "gelu",
        "hidden_size": config.hidden_size,
        "intermediate_size": config.intermediate_size,
        "layer_norm_eps": config.layer_norm_eps,
        "max_position_embeddings": config.max_positions,
        "num_attention_heads": config.num_heads,
        "num_hidden_layers": config.num_layers,
        "position_embedding_type": "absolute",
        "type_vocab_size": config.type_vocab_size,
        "vocab_size": config.vocab_size,
    }


def write_tiny_bert(folder: Path, seed: int = 0, prefix: str = "") -> EncoderWeights:
    """config.json, model.safetensors and vocab.txt of a random 2-layer, 2-head BERT."""
    from safetensors.numpy import save_file

    folder.mkdir(parents=True, exist_ok=True)
    weights = random_weights(TINY, seed)
    save_file(tensors_of(weights, prefix), str(folder / "model.safetensors"))
    (folder / "config.json").write_text(json.dumps(config_json(TINY)), encoding="utf-8")
    (folder / "vocab.txt").write_text("\n".join(VOCAB) + "\n", encoding="utf-8")
    return weights
