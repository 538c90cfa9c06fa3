// SPDX-License-Identifier: MIT
// CUDA's context lock (internal.hpp): one per process, as hip-cpu's devices share one runtime.
#include "internal.hpp"

namespace hipcpu {

std::shared_mutex &context_lock() {
    static auto *lock = new std::shared_mutex;  // never destroyed: frees may run at exit
    return *lock;
}

}  // namespace hipcpu
