// SPDX-License-Identifier: MIT
/**
 * @file hipfile.hpp
 * @brief hipfile++ umbrella header: everything but the opt-in fmt support (fmt.hpp).
 *
 * hipfile++ is a header-only layer over the hipFile C API (<hipfile/hipfile.h>): move-only
 * owners whose destructors do the teardown (Driver, File, DeviceBuffer, Registration,
 * RegisteredBuffer), span-based I/O, and Result<T> = std::expected<T, Error> instead of
 * exceptions. It calls only the public C API, the HIP runtime (DeviceBuffer) and POSIX
 * (open/close/fstat), and compiles with -fno-exceptions.
 */
#pragma once

#include "error.hpp"
#include "span.hpp"
#include "pending.hpp"
#include "driver.hpp"
#include "device_buffer.hpp"
#include "registration.hpp"
#include "file.hpp"
#include "io.hpp"
#include "batch.hpp"
#include "async.hpp"
#include "stats.hpp"
