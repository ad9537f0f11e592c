"""The digit-task data, checked without Keras against the source's own generator."""

from __future__ import annotations

import numpy as np

from tui_course.training.task import EXPECTED_POSITIVE_RATE, make_data, positive_rate


def source_data() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The source's code as it is written (seed 001), on the same seed."""
    rng = np.random.default_rng(0)

    def make_data(n):  # type: ignore[no-untyped-def]
        X = rng.integers(1, 10, (n, 30))
        same = rng.random(n) < 0.5
        X[same, -1] = X[same, 0]
        y = X[:, 0] == X[:, -1]
        return X, y

    x_train, y_train = make_data(8000)
    x_test, y_test = make_data(2000)
    return x_train, y_train, x_test, y_test


def test_data_is_the_sources_draw_for_draw() -> None:
    data = make_data()
    x_train, y_train, x_test, y_test = source_data()
    assert data.x_train.dtype == x_train.dtype and data.x_train.shape == (8000, 30)
    assert data.x_train.tobytes() == x_train.tobytes()
    assert data.x_test.tobytes() == x_test.tobytes()
    assert data.y_train.astype(bool).tobytes() == y_train.tobytes()
    assert data.y_test.astype(bool).tobytes() == y_test.tobytes()
    assert set(np.unique(data.y_train)) == {0.0, 1.0}  # labels are 0/1 for binary cross-entropy


def test_positives_are_about_five_ninths_not_half() -> None:
    data = make_data()
    everything = np.concatenate([data.x_train, data.x_test])
    assert everything.min() == 1 and everything.max() == 9
    labels = np.concatenate([data.y_train, data.y_test])
    assert positive_rate(labels) == np.mean(everything[:, 0] == everything[:, -1])
    assert EXPECTED_POSITIVE_RATE == 5 / 9
    assert abs(positive_rate(labels) - 5 / 9) < 0.02 and abs(positive_rate(labels) - 0.5) > 0.03


def test_data_is_deterministic_per_seed() -> None:
    assert np.array_equal(make_data(0).x_train, make_data(0).x_train)
    assert not np.array_equal(make_data(1).x_train, make_data(0).x_train)
    assert make_data(0, 100, 20, 12).x_test.shape == (20, 12)
