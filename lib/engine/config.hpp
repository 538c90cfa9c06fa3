// SPDX-License-Identifier: MIT
// Every engine knob in one place. Values start at built-in defaults, are overridden by HIPFILE_*
// environment variables, and (issue 6) by the parameter API while the driver is closed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace hipfile::engine {

struct Config {
  unsigned threads = 0;                    // worker threads; 0 = automatic
  std::size_t chunk_size = 4u << 20;       // bytes per staged chunk (4 KiB multiple)
  unsigned staging_depth = 2;              // staging buffers per worker and device
  std::size_t inline_threshold = 1u << 20; // requests up to this run on the caller's thread
  bool allow_compat = true;                // HIPFILE_ALLOW_COMPAT_MODE: the staging engine may serve I/O
  bool force_compat = false;               // HIPFILE_FORCE_COMPAT_MODE: never use a fastpath
  bool force_odirect = false;              // use O_DIRECT even when the client fd did not ask
  bool durable_writes = false;             // fdatasync once at the end of every write call
  bool allow_system_memory = true;         // host and managed memory as I/O targets

  /// Worker count after resolving 0 = automatic.
  unsigned effective_threads() const noexcept;

  /// Defaults overridden by the environment. Malformed values are reported (once, to stderr
  /// until the logger exists) and ignored.
  static Config from_environment();
};

/// Parses "4M", "512k", "1G", "4096" (binary multiples). False on malformed input or overflow.
bool parse_size(const char* text, std::size_t& out) noexcept;
/// Parses true/false/1/0/yes/no/on/off, case-insensitive.
bool parse_bool(const char* text, bool& out) noexcept;

}  // namespace hipfile::engine
