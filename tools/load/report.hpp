// SPDX-License-Identifier: MIT
// hipfile-load's report: the figures of a run, printed as text or as one JSON document.
#pragma once

#include <hipfile-safetensors/safetensors.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "options.hpp"

namespace hipfile::tools::load {

struct Pass {
  double seconds = 0;           // the whole load() call
  double allocate_seconds = 0;
  double read_seconds = 0;
};

struct Report {
  std::string command;
  const hipfile::safetensors::Checkpoint* checkpoint = nullptr;
  const hipfile::safetensors::LoadedCheckpoint* loaded = nullptr;  // the last pass
  std::vector<Pass> passes;
  double pinned_gbps = 0;
  double write_seconds = -1;    // -1: no --write
  std::string verify = "skipped";
};

/// The text report (stdout), with every tensor when o.list.
void print_text(const Report& r, const Options& o);
/// The JSON document (stdout).
void print_json(const Report& r, const Options& o);

}  // namespace hipfile::tools::load
