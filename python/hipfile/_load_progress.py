# SPDX-License-Identifier: MIT
"""Progress of a load_model made of several fills, reported as one count of bytes through
_progress.callback's sink (a callable(done_bytes, total_bytes), or the stderr line of
progress=True)."""

from ._progress import callback


class Progress:
    """Adds the fills' own (done, total) up into the load's: report() is what a fill calls,
    next_fill() is called after each fill with its bytes."""

    def __init__(self, progress, total):
        self._sink, self._close = callback(progress)
        self._total = total
        self._before = 0  # bytes of the fills already finished

    @property
    def enabled(self):
        return self._sink is not None

    def report(self, done, total):
        self._sink(self._before + done, self._total)

    def next_fill(self, nbytes):
        self._before += nbytes

    def close(self):
        self._close()
