# SPDX-License-Identifier: MIT
"""Runs one pytest file for meson: exit 77 (SKIP) when there is no HIP device, pytest's status
otherwise (a file whose tests all skip counts as passed)."""

import sys

import pytest

import hipfile

if hipfile.device_count() == 0:
    print("no HIP device: skipped")
    sys.exit(77)
status = pytest.main(["-q", "-p", "no:cacheprovider", "-rs", *sys.argv[1:]])
sys.exit(int(status))
