// SPDX-License-Identifier: MIT
// The benchmarks' way with a hipfile++ Result: the value, or the error's message and exit 1.
#pragma once

#include <hipfile++/error.hpp>

#include <cstdio>
#include <cstdlib>
#include <utility>

template <class T>
T need(hipfile::Result<T> r, const char* what) {
  if (!r) {
    std::fprintf(stderr, "%s: %s\n", what, r.error().message().c_str());
    std::exit(1);
  }
  return std::move(*r);
}

inline void need(hipfile::Result<void> r, const char* what) {
  if (!r) {
    std::fprintf(stderr, "%s: %s\n", what, r.error().message().c_str());
    std::exit(1);
  }
}
