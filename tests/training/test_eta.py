"""The ETA a run reports: tracing time at the start must not make it read minutes too long."""

from __future__ import annotations

import pytest

from tui_course.training.eta import EtaClock


def test_tracing_time_does_not_reach_the_eta() -> None:
    """10 epochs of 100 batches at 100 batches/s, after 20 s of tracing in epoch 1."""
    clock = EtaClock(epochs=10, batches=100)
    clock.epoch_begins(0.0)
    assert clock.eta(0, 25, 20.25) is None  # the first report: nothing measured yet
    eta = clock.eta(0, 50, 20.5)  # 25 batches in 0.25 s
    assert eta == pytest.approx(50 / 100 + 9 * 1.0)
    naive = (10 * 100 - 50) / (50 / 20.5)  # from the epoch's start, as before: 6.5 minutes
    assert naive > 380 and eta < 10


def test_after_an_epoch_the_rest_cost_what_it_took() -> None:
    clock = EtaClock(epochs=3, batches=10)
    clock.epoch_begins(0.0)
    clock.eta(0, 5, 1.0)
    clock.eta(0, 10, 2.0)
    clock.epoch_ends(4.0)  # validation took 2 s more
    clock.epoch_begins(4.0)
    assert clock.eta(1, 5, 5.0) == pytest.approx(5 / (10 / 4.0) + 1 * 4.0)
