// SPDX-License-Identifier: MIT
// Every thread's call stack, for a test that has stopped making progress: where each thread
// waits says what the others wait for. Symbols are what the dynamic linker knows (exported
// functions); hidden ones print as library+offset, for addr2line -f -C -e <library> <offset>.
#pragma once

namespace hipfile::test {

/// Writes the stack of every thread of the process but the caller's to `fd`, one at a time.
/// For diagnostics only: each thread is interrupted by a signal and walks its own stack there.
void dump_thread_stacks(int fd);

}  // namespace hipfile::test
