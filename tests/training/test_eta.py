"""The ETA a run reports: tracing time at the start must not make it read minutes too long.
The numbers are an RNN run's as a busy server measured them (epoch 1: 11.2 s, later 1.5 s)."""

from __future__ import annotations

import pytest

from tui_course.training.eta import EtaClock


def test_tracing_time_does_not_reach_the_eta() -> None:
    """30 epochs of 125 batches; the first report (25 batches) comes after 9 s of tracing."""
    clock = EtaClock(epochs=30, batches=125)
    clock.epoch_begins(0.0)
    assert clock.eta(0, 25, 9.0) is None  # the first report: nothing measured yet
    eta = clock.eta(0, 50, 9.25)  # then 100 batches a second
    assert eta == pytest.approx(75 / 100 + 29 * 1.25)
    naive = (30 * 125 - 50) / (50 / 9.25)  # from the epoch's start, as before: over 11 minutes
    assert naive > 600 and eta < 40


def test_the_first_epochs_length_is_not_the_rest_s() -> None:
    clock = EtaClock(epochs=30, batches=125)
    clock.epoch_begins(0.0)
    clock.eta(0, 25, 9.0)
    clock.eta(0, 125, 10.0)
    clock.epoch_ends(11.2)  # 11.2 s with tracing and the first validation
    clock.epoch_begins(11.2)
    assert clock.eta(1, 25, 11.45) == pytest.approx(100 / (125 / 2.45) + 28 * 125 / (125 / 2.45))
    assert clock.eta(1, 25, 11.45) < 2 * 28 * 1.5  # not 28 x 11.2 = 5 minutes
    clock.eta(1, 125, 12.45)
    clock.epoch_ends(12.7)  # a typical epoch, validation included: 1.5 s
    clock.epoch_begins(12.7)
    rate = (2 * 125 + 25 - 25) / (12.95 - 9.0)  # batches since the first report
    assert clock.eta(2, 25, 12.95) == pytest.approx(100 / rate + 27 * 1.5)
