"""The baseline for bench/training.py: the section-10 model trained by a plain script.

Same data and layers as the course (tui_course.training.task), compiled and fitted
the way a notebook would: model.fit(verbose=0), no callbacks, no child process.
Prints one JSON line: test accuracy, parameter count and seconds.
"""

from __future__ import annotations

import json
import os
import sys
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
start = time.perf_counter()

import keras  # noqa: E402

from tui_course.training.task import build_model, make_data  # noqa: E402

epochs = int(sys.argv[1]) if len(sys.argv) > 1 else 30
keras.utils.set_random_seed(0)
data = make_data(0, 8000, 2000, 30)
model, _ = build_model("transformer", 30, True)
model.compile(optimizer="adam", loss="binary_crossentropy", metrics=["accuracy"])
model.fit(data.x_train, data.y_train, epochs=epochs, batch_size=64, verbose=0)
loss, accuracy = model.evaluate(data.x_test, data.y_test, verbose=0)
print(
    json.dumps(
        {
            "test_accuracy": float(accuracy),
            "params": int(model.count_params()),
            "seconds": time.perf_counter() - start,
        }
    )
)
