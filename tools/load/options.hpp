// SPDX-License-Identifier: MIT
// hipfile-load's command line: what to load, where, and how to report it.
#pragma once

#include <string>
#include <vector>

namespace hipfile::tools::load {

struct Options {
  std::vector<std::string> paths;  // one .safetensors, several shards, or one index .json
  std::vector<int> devices{0};     // --device N or --devices LIST
  std::vector<std::string> only;   // --only NAME|PREFIX (each may be a comma list)
  bool verify = false;
  bool json = false;
  bool list = false;
  bool cold = false;
  bool direct = false;
  int reps = 1;
  int pause_ms = 500;              // --pause MS: rest between passes, after the memory is freed
  int parallel = 1;                // --parallel N: hipFileRead calls at once per shard and GPU
  std::string write_back;          // --write PATH: the loaded tensors, written again
  bool progress = false;
  bool quiet = false;
};

/// Parses argv; a usage error exits 2 (one line and the --help hint), --help exits 0.
Options parse(int argc, char** argv);

}  // namespace hipfile::tools::load
