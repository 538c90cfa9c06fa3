// SPDX-License-Identifier: MIT
#include "io/file.hpp"

#include <unistd.h>

namespace hipfile::engine {

File::~File() {
  fastpath_state.reset();  // the fastpath's registration refers to direct_fd: release it first
  // Only descriptors the library opened are closed; the client's fd is the client's.
  if (buffered_fd >= 0) ::close(buffered_fd);
  if (direct_fd >= 0) ::close(direct_fd);
}

}  // namespace hipfile::engine
