"""Memory and time of a large F16 (or BF16) model folder against the same shapes in F32.

The folder is a BERT-shaped config with a large vocabulary (the word embeddings
dominate, as in a real checkpoint) and a sparse model.safetensors (no disk used).
Each dtype is loaded and runs one sentence in a fresh child; printed are the peak
resident memory and the seconds, and the F16/F32 ratios from this one invocation.
F16 used to be converted whole at load (1.1 GB file: 3.2 GB, 18.5 s against
142 MB, 1.1 s in F32); it is now widened only where a sentence touches it.

    python bench/half_weights.py [--vocab 500000] [--hidden 1024]
"""

from __future__ import annotations

import argparse
import json
import os
import struct
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
ITEMSIZE = {"F32": 4, "F16": 2, "BF16": 2}


def shapes(vocab: int, hidden: int, inner: int, positions: int) -> dict[str, list[int]]:
    found = {
        "embeddings.word_embeddings.weight": [vocab, hidden],
        "embeddings.position_embeddings.weight": [positions, hidden],
        "embeddings.token_type_embeddings.weight": [2, hidden],
        "embeddings.LayerNorm.weight": [hidden],
        "embeddings.LayerNorm.bias": [hidden],
    }
    layer = {
        "attention.self.query.weight": [hidden, hidden],
        "attention.self.query.bias": [hidden],
        "attention.self.key.weight": [hidden, hidden],
        "attention.self.key.bias": [hidden],
        "attention.self.value.weight": [hidden, hidden],
        "attention.self.value.bias": [hidden],
        "attention.output.dense.weight": [hidden, hidden],
        "attention.output.dense.bias": [hidden],
        "attention.output.LayerNorm.weight": [hidden],
        "attention.output.LayerNorm.bias": [hidden],
        "intermediate.dense.weight": [inner, hidden],
        "intermediate.dense.bias": [inner],
        "output.dense.weight": [hidden, inner],
        "output.dense.bias": [hidden],
        "output.LayerNorm.weight": [hidden],
        "output.LayerNorm.bias": [hidden],
    }
    found.update({f"encoder.layer.0.{name}": shape for name, shape in layer.items()})
    return found


def write_model(folder: Path, dtype: str, vocab: int, hidden: int) -> int:
    from tests.tiny_bert import VOCAB

    inner, positions = hidden, 128
    folder.mkdir(parents=True)
    header: dict[str, object] = {}
    offset = 0
    for name, shape in shapes(vocab, hidden, inner, positions).items():
        size = ITEMSIZE[dtype]
        for n in shape:
            size *= n
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [offset, offset + size]}
        offset += size
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    path = folder / "model.safetensors"
    with path.open("wb") as handle:
        handle.write(struct.pack("<Q", len(text)) + text)
        handle.truncate(8 + len(text) + offset)  # sparse: zeros cost no disk
    config = {
        "model_type": "bert",
        "hidden_act": "gelu",
        "hidden_size": hidden,
        "intermediate_size": inner,
        "layer_norm_eps": 1e-12,
        "max_position_embeddings": positions,
        "num_attention_heads": 16,
        "num_hidden_layers": 1,
        "position_embedding_type": "absolute",
        "type_vocab_size": 2,
        "vocab_size": vocab,
    }
    (folder / "config.json").write_text(json.dumps(config), encoding="utf-8")
    (folder / "vocab.txt").write_text("\n".join(VOCAB) + "\n", encoding="utf-8")
    return path.stat().st_size


RUN = """
import json, resource, sys, time
from pathlib import Path
from tui_course.realmodel import load_model
start = time.perf_counter()
model = load_model(Path(sys.argv[1]), None)
model.attend("the cat sat on the mat")
seconds = time.perf_counter() - start
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({"seconds": seconds, "rss_mib": peak}))
"""


def run(folder: Path) -> dict[str, float]:
    result = subprocess.run(
        [sys.executable, "-c", RUN, str(folder)],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    return json.loads(result.stdout.splitlines()[-1])  # type: ignore[no-any-return]


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--vocab", type=int, default=500_000)
    parser.add_argument("--hidden", type=int, default=1024)
    args = parser.parse_args()
    sys.path.insert(0, str(REPO))
    results = {}
    with tempfile.TemporaryDirectory() as name:
        for dtype in ("F32", "F16", "BF16"):
            size = write_model(Path(name) / dtype, dtype, args.vocab, args.hidden)
            results[dtype] = {**run(Path(name) / dtype), "size": size}
    for dtype, found in results.items():
        print(
            f"{dtype:5} file {found['size'] / 2**30:5.2f} GiB (sparse)"
            f"   peak RSS {found['rss_mib']:7.1f} MiB   {found['seconds']:6.2f} s"
        )
    for dtype in ("F16", "BF16"):
        print(
            f"{dtype}/F32: memory {results[dtype]['rss_mib'] / results['F32']['rss_mib']:.2f},"
            f" time {results[dtype]['seconds'] / results['F32']['seconds']:.2f}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
