// SPDX-License-Identifier: MIT
// What moves data between a file and memory for the runtime: the staging engine (lib/staging) or
// a GPU-direct fastpath (lib/fastpath). The runtime asks each in turn whether it serves a request
// and hands it the request; a backend never calls back into the runtime.
#pragma once

#include "io/request.hpp"
#include "io/status.hpp"

namespace hipfile::engine {

class Backend {
 public:
  virtual ~Backend() = default;

  /// Whether this backend takes the request as it is (its memory, alignment and file).
  virtual bool serves(const Request& req) const = 0;
  /// Moves [req.offset, + req.size) between the file and req.mem. On failure `bytes` says how
  /// many leading bytes were moved (0 if unknown), so that another backend can serve the rest.
  virtual IoResult read(const Request& req) = 0;
  virtual IoResult write(const Request& req) = 0;
};

}  // namespace hipfile::engine
