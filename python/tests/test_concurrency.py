# SPDX-License-Identifier: MIT
"""A File used from several threads: close() racing reads and writes, SIGINT during long reads,
and a child process forked with the driver open."""

import os
import signal
import threading
import time

import numpy as np
import pytest

import hipfile
from conftest import pattern, read_file, write_file

CHUNK = 1 << 16


def hammer(f, data, make_buffer, write, stop, failures, done):
    """Reads into a buffer from make_buffer (or, with write, rewrites unchanged) chunks of f
    until the File is closed; anything but the closed-file ValueError, or a wrong byte, is a
    failure."""
    buf = make_buffer() if make_buffer else None
    i = 0
    while not stop.is_set():
        off = (i * CHUNK) % data.size
        i += 1
        try:
            if write:
                n = f.write(memoryview(data[off:off + CHUNK]), file_offset=off)
            else:
                n = f.read(buf, file_offset=off)
                got = buf.copy_to_host() if isinstance(buf, hipfile.DeviceBuffer) else bytes(buf)
                if got != data[off:off + CHUNK].tobytes():
                    failures.append(f"read at {off}: wrong bytes")
                    return
            if n != CHUNK:
                failures.append(f"short {'write' if write else 'read'} at {off}: {n}")
                return
            done.append("write" if write else "read")
        except ValueError as e:
            if str(e) != "I/O operation on closed file":
                failures.append(repr(e))
            return
        except BaseException as e:  # noqa: BLE001 -- any other outcome is the race showing
            failures.append(repr(e))
            return


def test_close_while_threads_read_and_write_is_safe(path):
    data = pattern(16 * CHUNK, seed=91)
    write_file(path, data)
    done = []  # the calls that completed, over all rounds: the race must have had I/O to race
    for _ in range(30):
        f = hipfile.File(path, "r+")
        stop, failures = threading.Event(), []
        workers = [threading.Thread(target=hammer, args=(f, data, lambda: hipfile.DeviceBuffer(CHUNK), False,
                                                         stop, failures, done)),
                   threading.Thread(target=hammer, args=(f, data, lambda: bytearray(CHUNK), False, stop, failures,
                                                         done)),
                   threading.Thread(target=hammer, args=(f, data, None, True, stop, failures, done))]
        for w in workers:
            w.start()
        time.sleep(0.01)
        f.close()
        for w in workers:
            w.join(timeout=30)
        stop.set()
        assert not any(w.is_alive() for w in workers), "a thread kept running after close()"
        assert failures == []
        assert f.closed
        for call in (lambda: f.read(bytearray(4)), lambda: f.write(b"x"), f.size, f.fileno, f.sync,
                     lambda: f.pread(bytearray(4))):
            with pytest.raises(ValueError, match="^I/O operation on closed file$"):
                call()
    assert "read" in done and "write" in done
    assert read_file(path) == data.tobytes()  # the writer rewrote the same bytes


def test_sigint_during_long_reads_raises_keyboard_interrupt_promptly(path):
    size = 32 << 20
    with open(path, "wb") as out:
        out.truncate(size)
    buf = hipfile.DeviceBuffer(size)
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)  # a test runner may ignore it
    timer = threading.Timer(0.2, os.kill, (os.getpid(), signal.SIGINT))
    try:
        with hipfile.File(path) as f:
            start = time.monotonic()
            with pytest.raises(KeyboardInterrupt):
                timer.start()
                while time.monotonic() - start < 60:
                    assert f.read(buf) == size
            elapsed = time.monotonic() - start
        assert elapsed < 10, f"KeyboardInterrupt came {elapsed:.1f} s after the loop began"
        with hipfile.File(path) as f:  # the binding is still usable
            assert f.read(buf, size=4096) == 4096
    finally:
        timer.cancel()
        signal.signal(signal.SIGINT, previous)


CHILD_DEADLINE_S = 15


def child_reads(f, path, data):
    """Runs in the forked child: reads through the inherited File and a new one; exit 0 when
    both give the right bytes, 2 when one raised hipfile.Error (a clear refusal), else 1."""
    signal.signal(signal.SIGALRM, signal.SIG_DFL)
    signal.alarm(CHILD_DEADLINE_S)  # a hang dies of SIGALRM even if the parent were gone
    code = 0
    try:
        dst = hipfile.DeviceBuffer(data.size)
        if f.read(dst) != data.size or dst.copy_to_host() != data.tobytes():
            code = 1
        with hipfile.File(path) as g:
            dst2 = hipfile.DeviceBuffer(data.size)
            if g.read(dst2) != data.size or dst2.copy_to_host() != data.tobytes():
                code = 1
    except hipfile.Error:
        code = 2 if code == 0 else code
    except BaseException:  # noqa: BLE001 -- anything else is a wrong answer
        code = 1
    os._exit(code)


def test_a_forked_child_reads_or_raises_but_never_hangs(path):
    """Meaningful on every platform, platform=cpu included: the parent's device read brings up
    the library's engine (threads, streams), which the child inherits without its threads. The
    reads are large enough to go through the engine's workers (a 1 MiB one did not hang)."""
    data = pattern(16 << 20, seed=93)
    write_file(path, data)
    with hipfile.File(path) as f:
        parent_buf = hipfile.DeviceBuffer(data.size)
        assert f.read(parent_buf) == data.size and parent_buf.copy_to_host() == data.tobytes()
        pid = os.fork()
        if pid == 0:
            child_reads(f, path, data)
        deadline = time.monotonic() + CHILD_DEADLINE_S + 5
        while True:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                break
            if time.monotonic() > deadline:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                pytest.fail("the forked child's read hung (killed)")
            time.sleep(0.05)
        assert not (os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGALRM), \
            "the forked child's read hung (its alarm fired)"
        assert os.WIFEXITED(status), f"the child died of signal {os.WTERMSIG(status)}"
        assert os.WEXITSTATUS(status) in (0, 2), "the child read wrong bytes or raised something else"
        assert f.read(parent_buf) == data.size  # the parent goes on
    assert np.array_equal(np.frombuffer(parent_buf.copy_to_host(), dtype=np.uint8), data)
