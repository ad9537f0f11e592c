"""How long a run has left, measured so the first seconds do not mislead.

The first batches of a run include Keras tracing its graph: a rate measured from the
start of epoch 1 made an RNN's first ETA read over six minutes for a run that takes
under one. So batches are timed from the first one reported (after tracing), and once
an epoch has finished, each remaining epoch costs what the last one took (validation
included).
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class EtaClock:
    epochs: int
    batches: int  # per epoch
    _first: tuple[float, int] | None = field(default=None, repr=False)  # (time, batches done)
    _last_epoch_seconds: float | None = field(default=None, repr=False)
    _epoch_started: float | None = field(default=None, repr=False)

    def epoch_begins(self, now: float) -> None:
        self._epoch_started = now

    def epoch_ends(self, now: float) -> None:
        if self._epoch_started is not None:
            self._last_epoch_seconds = now - self._epoch_started

    def batch_rate(self, epoch: int, batch: int, now: float) -> float | None:
        """Batches per second since the first report (epoch 0-based, batch = done in it)."""
        done = epoch * self.batches + batch
        if self._first is None:
            self._first = (now, done)
            return None
        then, done_then = self._first
        if now <= then or done <= done_then:
            return None
        return (done - done_then) / (now - then)

    def eta(self, epoch: int, batch: int, now: float) -> float | None:
        """Seconds left, or None while there is nothing honest to say yet."""
        rate = self.batch_rate(epoch, batch, now)
        later_epochs = self.epochs - epoch - 1
        if rate is None:
            if self._last_epoch_seconds is None:
                return None
            rest_of_this = self._last_epoch_seconds * (self.batches - batch) / self.batches
            return rest_of_this + later_epochs * self._last_epoch_seconds
        rest_of_this = (self.batches - batch) / rate
        per_epoch = self._last_epoch_seconds or self.batches / rate
        return rest_of_this + later_epochs * per_epoch
