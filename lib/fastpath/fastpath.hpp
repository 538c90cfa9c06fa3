// SPDX-License-Identifier: MIT
// GPU-direct fastpaths (doc/architecture.md, doc/fastpaths.md): a backend that moves data
// between a file and device memory without the staging engine (NVIDIA cuFile, AMD
// hipAmdFileRead/Write). At most one is loaded, at driver open; the runtime asks it per I/O
// whether it serves the request (select.cpp), and whatever it cannot serve the engine serves.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <memory>

#include "fastpath/report.hpp"
#include "gpu/hip.hpp"
#include "io/backend.hpp"
#include "io/config.hpp"
#include "io/file.hpp"
#include "io/request.hpp"
#include "io/status.hpp"

namespace hipfile::fastpath {

using engine::Config;
using engine::Direction;
using engine::File;
using engine::IoResult;
using engine::Request;

/// Which fastpath it is: the runtime's statistics count each in its own slot.
enum class Kind { Cufile, AmdAis };

class Fastpath : public engine::Backend {
 public:
  /// Device memory only, the file attached, and the offset, size and address aligned as
  /// min_alignment() and the file's O_DIRECT alignments ask (select.cpp); then usable_for.
  bool serves(const Request& req) const final;
  IoResult read(const Request& req) final { return read(*req.file, req.mem, req.size, req.offset); }
  IoResult write(const Request& req) final { return write(*req.file, req.mem, req.size, req.offset); }

  /// "cufile", "amd-ais", or a test's name; for logs.
  virtual const char* name() const noexcept = 0;
  /// Which one: the statistics slot of requests this fastpath finishes.
  virtual Kind kind() const noexcept = 0;
  /// Smallest alignment of file offset, size and memory address it accepts; serves() applies
  /// max(this, the file's O_DIRECT alignments) before asking usable_for.
  virtual std::uint32_t min_alignment() const noexcept { return 4096; }

  /// Per-file registration, called once when a file is registered (before it becomes visible to
  /// I/O). Returns the state to keep in File::fastpath_state (released, and the registration
  /// with it, when the File goes away), or null: the file is engine-only.
  virtual std::shared_ptr<void> attach(const File& file) = 0;

  /// Whether this fastpath takes the request (already aligned, device memory, file attached).
  virtual bool usable_for(const File& file, gpu::MemKind kind, int device, const void* mem, off_t offset,
                          std::size_t size) const = 0;

  /// Moves [offset, offset + size) between the file and `mem`. On failure `bytes` still says how
  /// many leading bytes were moved (0 if unknown), so that the engine can serve only the rest.
  /// A successful short count is a short read (possibly end of file) or a short write.
  virtual IoResult read(const File& file, void* mem, std::size_t size, off_t offset) = 0;
  virtual IoResult write(const File& file, const void* mem, std::size_t size, off_t offset) = 0;
};

/// Loads the platform's fastpath (driver open; never at library load). Null when none exists on
/// this platform, HIPFILE_FORCE_COMPAT_MODE is set, or the runtime lacks support. The decision
/// is logged at debug level and published as the fastpath report (report.hpp).
std::shared_ptr<Fastpath> load(const Config& config);

// Loaders (cufile.cpp, amd_ais.cpp). Each fills `report` with what it found, and returns null
// when it loads nothing (amd_ais.cpp: also when compiled out, on builds other than amd).
std::shared_ptr<Fastpath> load_cufile(const Config& config, Report& report);
std::shared_ptr<Fastpath> load_amd_ais(const Config& config, Report& report);

/// Whether this kernel can give cuFile a GPU-direct path: the nvidia-fs module
/// (`ROOT/proc/driver/nvidia-fs`, or a `ROOT/dev/nvidia-fs*` device, as containers see it), or
/// PCI P2PDMA when `p2pdma_asked`. Without either, libcufile can only report "no GPU-direct
/// storage", and loading and opening it (most of a first driver open) is skipped. `root` is ""
/// except in tests.
bool gds_kernel_support(bool p2pdma_asked, const std::string& root = "");

/// Per-file registration hook: sets file.fastpath_state when `fp` accepts the file.
void attach(Fastpath* fp, File& file);

/// Test hook (fastpath suite): while set, load() returns this instead of the platform's
/// fastpath. Pass null to restore. Takes effect at the next driver open.
void set_test_fastpath(std::shared_ptr<Fastpath> fp);

}  // namespace hipfile::fastpath
