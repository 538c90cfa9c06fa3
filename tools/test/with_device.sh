#!/bin/sh
# SPDX-License-Identifier: MIT
# with_device.sh PROBE COMMAND ARGS...: run COMMAND where a GPU answers; report SKIP (77) where
# none does, so GPU builds on machines without a GPU do not count the tools' tests as failures.
probe=$1
shift
"$probe" || exit $?
exec "$@"
