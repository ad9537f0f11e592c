"""`python -m tui_course.training`: train the digit task and report JSON lines on stdout.

Everything TensorFlow prints (C++ logs, warnings) goes to a log file: the
original stdout is kept for the event stream only. Threads are capped and
niceness raised before TensorFlow is imported, so thirty students training at
once on one lab server share it instead of fighting over it. Once its last event
is out, the child exits without TensorFlow's teardown (end_now).
"""

from __future__ import annotations

# First, before any other import: a parent that dies from here on takes this child along.
from tui_course.training.lifeline import hold_on_to_parent

hold_on_to_parent()

# isort: split
import argparse
import contextlib
import os
import sys
import time
from pathlib import Path
from typing import IO, Any

from tui_course.paths import ensure_private_dir
from tui_course.training.eta import EtaClock
from tui_course.training.options import TrainOptions, add_train_arguments, options_from_args
from tui_course.training.protocol import (
    AttentionSample,
    AttentionSummary,
    BatchProgress,
    Done,
    EpochEnd,
    Error,
    Event,
    Started,
    encode,
)

PROGRESS_INTERVAL = 0.2  # seconds between batch events: several a second, not thousands
VALIDATION_BATCH = 500  # evaluation has no gradients: bigger batches, same numbers, less time
SUMMARY_CHUNK = 100  # test rows per attention pass: the running mean never holds them all


class Reporter:
    def __init__(self, stream: IO[str]) -> None:
        self.stream = stream

    def __call__(self, event: Event) -> None:
        self.stream.write(encode(event) + "\n")
        self.stream.flush()


def claim_stdout(log_path: Path) -> IO[str]:
    """Keep the real stdout for events; send fds 1 and 2 (TF's chatter) to the log."""
    events = os.fdopen(os.dup(1), "w", buffering=1, encoding="utf-8")
    ensure_private_dir(log_path.parent)
    log_fd = os.open(log_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_NOFOLLOW, 0o600)
    sys.stdout.flush()
    sys.stderr.flush()
    os.dup2(log_fd, 1)
    os.dup2(log_fd, 2)
    os.close(log_fd)
    return events


def limit_resources(threads: int) -> None:
    """Before TensorFlow is imported: fewer threads, lower priority, quieter logs."""
    for name in ("OMP_NUM_THREADS", "TF_NUM_INTRAOP_THREADS", "TF_NUM_INTEROP_THREADS"):
        os.environ[name] = str(threads)
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    os.environ.setdefault("KERAS_BACKEND", "tensorflow")
    with contextlib.suppress(OSError):
        os.nice(10)


def make_callback(report: Reporter, options: TrainOptions, batches: int) -> Any:
    import keras

    clock = EtaClock(options.epochs, batches)

    class Progress(keras.callbacks.Callback):  # type: ignore[misc]
        def on_train_begin(self, logs: Any = None) -> None:
            self.start = time.perf_counter()
            self.last = 0.0
            self.epoch = 0

        def on_epoch_begin(self, epoch: int, logs: Any = None) -> None:
            self.epoch = epoch
            self.epoch_start = time.perf_counter()
            clock.epoch_begins(self.epoch_start)

        def on_train_batch_end(self, batch: int, logs: Any = None) -> None:
            now = time.perf_counter()
            if now - self.last < PROGRESS_INTERVAL:
                return
            self.last = now
            done = batch + 1
            eta = clock.eta(self.epoch, done, now)
            rate = clock.batch_rate(self.epoch, done, now) or done / max(
                now - self.epoch_start, 1e-9
            )
            logs = logs or {}
            report(
                BatchProgress(
                    epoch=self.epoch + 1,
                    epochs=options.epochs,
                    batch=done,
                    batches=batches,
                    loss=float(logs.get("loss", 0.0)),
                    accuracy=float(logs.get("accuracy", 0.0)),
                    samples_per_second=rate * options.batch_size,
                    eta_seconds=-1.0 if eta is None else eta,
                )
            )

        def on_epoch_end(self, epoch: int, logs: Any = None) -> None:
            clock.epoch_ends(time.perf_counter())
            logs = logs or {}
            report(
                EpochEnd(
                    epoch=epoch + 1,
                    epochs=options.epochs,
                    loss=float(logs["loss"]),
                    accuracy=float(logs["accuracy"]),
                    val_loss=float(logs["val_loss"]),
                    val_accuracy=float(logs["val_accuracy"]),
                    seconds=time.perf_counter() - self.start,
                )
            )

    return Progress()


def train(options: TrainOptions, report: Reporter, log_path: Path) -> None:
    import keras
    import numpy as np

    from tui_course.training.task import build_model, make_data

    keras.utils.set_random_seed(options.seed)
    data = make_data(options.seed, options.train_size, options.test_size, options.length)
    model, attention_model = build_model(options.model, options.length, options.position)
    model.compile(
        optimizer="adam",
        loss="binary_crossentropy",
        metrics=["accuracy"],
        steps_per_execution=options.steps_per_execution,
    )
    batches = -(-options.train_size // options.batch_size)
    report(
        Started(
            model=options.model,
            params=int(model.count_params()),
            epochs=options.epochs,
            batches=batches,
            batch_size=options.batch_size,
            train_size=options.train_size,
            test_size=options.test_size,
            length=options.length,
            position=options.position,
            seed=options.seed,
            threads=options.threads,
            log=str(log_path),
        )
    )
    start = time.perf_counter()
    history = model.fit(
        data.x_train,
        data.y_train,
        epochs=options.epochs,
        batch_size=options.batch_size,
        validation_data=(data.x_test, data.y_test),
        validation_batch_size=VALIDATION_BATCH,
        verbose=0,
        callbacks=[make_callback(report, options, batches)],
    )
    # The last epoch's validation is the test set under the final weights, in the same
    # batches: evaluating again would give the same two numbers.
    test_loss = history.history["val_loss"][-1]
    test_accuracy = history.history["val_accuracy"][-1]
    seconds = time.perf_counter() - start
    if attention_model is not None:
        picks = _sample_rows(data.y_test, options.attention_samples)
        summary, samples = _attention_pass(model, attention_model, data.x_test, picks)
        for row in picks:
            weights, prediction = samples[row]
            report(
                AttentionSample(
                    digits=[int(d) for d in data.x_test[row]],
                    label=int(data.y_test[row]),
                    prediction=prediction,
                    weights=np.round(weights.astype(float), 4).tolist(),
                )
            )
        report(summary)
    report(
        Done(
            test_accuracy=float(test_accuracy),
            test_loss=float(test_loss),
            params=int(model.count_params()),
            epochs=options.epochs,
            seconds=seconds,
            model=options.model,
            position=options.position,
            length=options.length,
            history={k: [float(v) for v in values] for k, values in history.history.items()},
        )
    )


def _attention_pass(
    model: Any, attention_model: Any, x_test: Any, picks: list[int]
) -> tuple[AttentionSummary, dict[int, tuple[Any, float]]]:
    """One pass over the test rows, in chunks (bounded memory): the trained attention averaged
    over every sequence, and the weights and prediction of the picked rows."""
    import keras
    import numpy as np

    both = keras.Model(model.inputs, [model.outputs[0], attention_model.outputs[0]])
    total: Any = 0.0
    samples: dict[int, tuple[Any, float]] = {}
    for start in range(0, len(x_test), SUMMARY_CHUNK):
        predictions, scores = both.predict_on_batch(x_test[start : start + SUMMARY_CHUNK])
        scores = np.asarray(scores)
        total = total + scores.sum(axis=0, dtype=np.float64)
        for row in picks:
            if start <= row < start + len(scores):
                samples[row] = (scores[row - start], float(np.asarray(predictions)[row - start, 0]))
    mean = total / len(x_test)
    summary = AttentionSummary(sequences=len(x_test), weights=np.round(mean, 4).tolist())
    return summary, samples


def _sample_rows(labels: Any, count: int) -> list[int]:
    """The first test rows, alternating a 'same' and a 'different' one."""
    same = [i for i, label in enumerate(labels) if label == 1]
    different = [i for i, label in enumerate(labels) if label == 0]
    rows: list[int] = []
    for pair in zip(same, different, strict=False):
        rows.extend(pair)
    return rows[:count]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tui_course.training")
    add_train_arguments(parser)
    parser.add_argument(
        "--log", metavar="FILE", required=True, help="where TensorFlow's output goes"
    )
    args = parser.parse_args(argv)
    options = options_from_args(args)
    log_path = Path(args.log)
    report = Reporter(claim_stdout(log_path))
    limit_resources(options.threads)
    try:
        train(options, report, log_path)
    except KeyboardInterrupt:
        from tui_course.training.runner import read_tail  # asyncio and more: only when needed

        report(Error(message="interrupted", log_tail=read_tail(log_path)))
        return 130
    except Exception as error:  # report anything, never a traceback on the event stream
        import traceback

        from tui_course.training.runner import read_tail

        traceback.print_exc()  # into the log file
        report(Error(message=f"{type(error).__name__}: {error}", log_tail=read_tail(log_path)))
        return 1
    return 0


def end_now(code: int) -> None:
    """Exit as soon as the events are out: TensorFlow's teardown (1 to 2 s of a loaded
    machine's time) is nothing the student waits for, and nothing is left to save."""
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    os._exit(code)


if __name__ == "__main__":
    end_now(main())
