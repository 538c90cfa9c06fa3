// SPDX-License-Identifier: MIT
/**
 * @file hipfile-safetensors/export.hpp
 * @brief HIPFILE_ST_API marks what libhipfile-safetensors exports. The library is built with
 *        hidden visibility, so its JSON parser and other internals never answer for (nor are
 *        replaced by) another copy in the process.
 */
#pragma once

#define HIPFILE_ST_API __attribute__((visibility("default")))
