# SPDX-License-Identifier: MIT
"""progress=True of load_safetensors_into: one line on stderr, rewritten in place (a carriage
return, as tqdm does) with the bytes read, the percentage and the rate, and a newline at the end."""

import sys
import time


def _size(n):
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if n >= scale:
            return f"{n / scale:.2f} {unit}"
    return f"{n} B"


class ProgressLine:
    """A callable(done, total) that draws the line; close() ends it. Redraws at most every
    `interval` seconds (a fill reports after each read) and always at 100%."""

    def __init__(self, label="hipfile", stream=None, interval=0.1):
        self._label = label
        self._stream = stream if stream is not None else sys.stderr
        self._interval = interval
        self._began = time.perf_counter()
        self._drawn = None  # time of the last redraw
        self._width = 0

    def line(self, done, total, now):
        seconds = max(now - self._began, 1e-9)
        percent = 100.0 * done / total if total else 100.0
        return (f"{self._label}: {percent:5.1f}% | {_size(done)} / {_size(total)} | "
                f"{done / seconds / 1e9:.2f} GB/s | {seconds:.1f} s")

    def __call__(self, done, total):
        now = time.perf_counter()
        if self._drawn is not None and done < total and now - self._drawn < self._interval:
            return
        self._drawn = now
        text = self.line(done, total, now)
        pad = " " * max(self._width - len(text), 0)  # a shorter line must hide the longer one's end
        self._width = len(text)
        self._stream.write("\r" + text + pad)
        self._stream.flush()

    def close(self):
        if self._drawn is not None:
            self._stream.write("\n")
            self._stream.flush()


def callback(progress):
    """(callable or None, close) for progress=None/False, True or a callable(done, total)."""
    if progress is None or progress is False:
        return None, lambda: None
    if progress is True:
        line = ProgressLine()
        return line, line.close
    if callable(progress):
        return progress, lambda: None
    raise TypeError(f"hipfile: progress must be True, False, None or a callable(done, total), "
                    f"not {type(progress).__name__}")
