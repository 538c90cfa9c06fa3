// SPDX-License-Identifier: MIT
// hipfile-load's report: the figures of a run, printed as text or as one JSON document.
#pragma once

#include <hipfile-safetensors/safetensors.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "options.hpp"
#include "placed.hpp"

namespace hipfile::tools::load {

struct Pass {
  double seconds = 0;           // the whole load() call
  hipfile::safetensors::LoadStats stats;
};

/// What the process did before the first pass, each timed apart (seconds).
struct Startup {
  double context = 0;           // the GPU runtime and the first device's context
  double open_checkpoint = 0;   // opening the files and parsing their headers
  double driver_open = 0;       // hipFileDriverOpen
  double ceiling = 0;           // measuring the pinned copy rate
};

struct Report {
  std::string command;
  const hipfile::safetensors::Checkpoint* checkpoint = nullptr;
  const Loaded* loaded = nullptr;  // the last pass
  std::vector<Pass> passes;
  Startup startup;
  double pinned_gbps = 0;
  double write_seconds = -1;    // -1: no --write
  std::string verify = "skipped";
};

/// The text report (stdout), with every tensor when o.list.
void print_text(const Report& r, const Options& o);
/// The JSON document (stdout).
void print_json(const Report& r, const Options& o);

}  // namespace hipfile::tools::load
