"""The digit-task data, checked without Keras."""

from __future__ import annotations

import numpy as np

from tui_course.training.task import make_data


def test_data_matches_the_syllabus() -> None:
    data = make_data()
    assert data.x_train.shape == (8000, 30) and data.x_test.shape == (2000, 30)
    everything = np.concatenate([data.x_train, data.x_test])
    assert everything.min() == 1 and everything.max() == 9
    labels = np.concatenate([data.y_train, data.y_test])
    assert np.array_equal(labels, (everything[:, 0] == everything[:, -1]).astype("float32"))
    # exactly half forced equal, plus about one in nine of the rest by chance
    assert 0.5 + 0.5 / 9 - 0.02 < labels.mean() < 0.5 + 0.5 / 9 + 0.02


def test_data_is_deterministic_per_seed() -> None:
    assert np.array_equal(make_data(0).x_train, make_data(0).x_train)
    assert not np.array_equal(make_data(1).x_train, make_data(0).x_train)
    assert make_data(0, 100, 20, 12).x_test.shape == (20, 12)
