// SPDX-License-Identifier: MIT
// hipfile-load's command line: what to load, where, and how to report it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace hipfile::tools::load {

/// --slice DIM:START:STOP: elements [START, STOP) of dimension DIM.
struct SliceSpec {
  std::size_t dim = 0;
  std::uint64_t start = 0;
  std::uint64_t stop = 0;
};

/// How --rank's tensors are split (hipfile::safetensors::Parallel, less replicated).
enum class Layout { column, row, vocabulary };

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
  std::optional<SliceSpec> slice;  // --slice: every tensor with dimension DIM, read as this slice
  int rank = -1;                   // --rank R --world-size N: each tensor's tensor-parallel share
  int world_size = 0;
  std::optional<Layout> layout;    // --layout (default column)
  bool parallel_given = false;     // slices are read by fill(), whose default is 4 reads at once

  /// Tensors are read into buffers the tool allocates, through fill() (--slice or --rank).
  [[nodiscard]] bool slicing() const noexcept { return slice.has_value() || rank >= 0; }
};

/// "column", "row", "vocabulary".
const char* layout_name(Layout l) noexcept;

/// Parses argv; a usage error exits 2 (one line and the --help hint), --help exits 0.
Options parse(int argc, char** argv);

}  // namespace hipfile::tools::load
