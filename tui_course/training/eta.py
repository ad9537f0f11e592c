"""How long a run has left, measured so the first seconds do not mislead.

Epoch 1 includes Keras tracing its training and validation graphs (10 s of an RNN's
11 s first epoch on a busy server, against 1.5 s for each later one): a rate measured
from the start of epoch 1, or "each epoch costs what the first took", made an RNN's ETA
read over five minutes for a run that takes under one. So batches are timed from the
first one reported (after tracing), and each remaining epoch costs what the last epoch
after the first took (validation included), or until there is one, what its batches take
at the measured rate.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class EtaClock:
    epochs: int
    batches: int  # per epoch
    _first: tuple[float, int] | None = field(default=None, repr=False)  # (time, batches done)
    _epoch_seconds: list[float] = field(default_factory=list, repr=False)
    _epoch_started: float | None = field(default=None, repr=False)

    def epoch_begins(self, now: float) -> None:
        self._epoch_started = now

    def epoch_ends(self, now: float) -> None:
        if self._epoch_started is not None:
            self._epoch_seconds.append(now - self._epoch_started)

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
        if rate is None:
            return None
        later_epochs = self.epochs - epoch - 1
        typical = self._epoch_seconds[1:]  # the first epoch paid for tracing
        per_epoch = typical[-1] if typical else self.batches / rate
        return (self.batches - batch) / rate + later_epochs * per_epoch
