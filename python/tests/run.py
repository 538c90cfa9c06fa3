# SPDX-License-Identifier: MIT
"""Runs one pytest file for meson: exit 77 (SKIP) when there is no HIP device or when nothing in
the file passed and something skipped (a file of framework tests on a machine without the
frameworks proved nothing); pytest's status otherwise."""

import sys

import pytest

import hipfile


class OutcomeCounter:
    """A pytest plugin that counts the tests that passed and those that skipped, and keeps the
    reasons of the skips."""

    def __init__(self):
        self.passed = 0
        self.skipped = 0
        self.reasons = []

    def _skip(self, report):
        self.skipped += 1
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
        reason = reason.removeprefix("Skipped: ")
        if reason not in self.reasons:
            self.reasons.append(reason)

    def pytest_runtest_logreport(self, report):
        if report.skipped:
            self._skip(report)
        elif report.passed and report.when == "call":
            self.passed += 1

    def pytest_collectreport(self, report):
        if report.skipped:  # a module-level pytest.skip
            self._skip(report)


def main(args):
    if hipfile.device_count() == 0:
        print("SKIP: the HIP runtime reports no device")
        return 77
    counter = OutcomeCounter()
    status = int(pytest.main(["-q", "-p", "no:cacheprovider", "-rs", *args], plugins=[counter]))
    if status == 0 and counter.passed == 0 and counter.skipped > 0:
        # "SKIP:" lines are what .ci/run lists as the reasons.
        print(f"all {counter.skipped} tests skipped: reported as SKIP")
        for reason in counter.reasons:
            print(f"SKIP: {reason}")
        return 77
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
