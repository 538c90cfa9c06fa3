// SPDX-License-Identifier: MIT
// The environment as the library reads it. Every HIPFILE_* knob goes through here:
// secure_getenv, so a set-user-ID, set-group-ID or capability-raised process (the kernel's
// AT_SECURE) reads none of them; and a path-valued knob set in such a process is ignored with a
// warning, because it would name a file for a privileged process to load, append to or replace
// (HIPFILE_CUFILE_LIBRARY runs a constructor; HIPFILE_LOG_FILE appends to a root-only file).
#pragma once

namespace hipfile::engine::env {

/// The variable's value, or null when unset or when the process is privileged.
const char* get(const char* name) noexcept;

/// Whether the process runs with privileges it did not get from its user: set-user-ID,
/// set-group-ID or file capabilities (getauxval(AT_SECURE)), or the test seam says so.
bool privileged() noexcept;

/// Whether a path-valued knob was set but is ignored because the process is privileged (the
/// caller logs it). Reads the raw environment only to say so, never to use the value.
bool path_ignored(const char* name) noexcept;

/// Test seam: treat the process as privileged (true) or ask the kernel (false).
void set_privileged_for_test(bool privileged) noexcept;

}  // namespace hipfile::engine::env
