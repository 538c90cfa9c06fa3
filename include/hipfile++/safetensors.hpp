// SPDX-License-Identifier: MIT
/**
 * @file safetensors.hpp
 * @brief Model checkpoints in the safetensors format, into and out of GPU memory.
 *
 * ```cpp
 * #include <hipfile++/safetensors.hpp>
 * namespace st = hipfile::safetensors;
 *
 * auto ckpt = st::Checkpoint::open("model.safetensors.index.json");  // or one file, or shards
 * if (!ckpt) { std::puts(ckpt.error().message().c_str()); return 1; }
 * for (const auto& t : ckpt->tensors()) ...;                         // name, dtype, shape, range
 * auto gpu = st::load(*ckpt);                                        // all tensors, current device
 * auto w = gpu->span<st::bf16>("model.embed_tokens.weight");         // std::span of device memory
 * auto ok = st::write("out.safetensors", st::tensors_of(*gpu));
 * ```
 *
 * Parts, one concern each (include this header for all of them):
 * - safetensors/dtype.hpp: Dtype, names, sizes, dtype_of<T> for typed access;
 * - safetensors/error.hpp: Errc, Error (code, file, tensor, text, cause), Result<T>;
 * - safetensors/header.hpp: TensorInfo, parse_header(), read_header(): the format's rules;
 * - safetensors/checkpoint.hpp: Checkpoint: open a file, shards or an index; list tensors;
 * - safetensors/load.hpp: LoadOptions, load(): into device memory, in parallel;
 * - safetensors/loaded.hpp: LoadedCheckpoint: owned allocations, views, span<T>(), release();
 * - safetensors/write.hpp: TensorData, write(): a checkpoint the safetensors package reads.
 *
 * Header-only over the public C API and hipfile++ (File, DeviceBuffer, Error); the JSON
 * header is parsed by nlohmann-json (https://github.com/nlohmann/json, Debian/Ubuntu package
 * nlohmann-json3-dev), called so that it never throws. Nothing here throws; it compiles with
 * -fno-exceptions.
 */
#pragma once

#include "safetensors/dtype.hpp"
#include "safetensors/error.hpp"
#include "safetensors/header.hpp"
#include "safetensors/checkpoint.hpp"
#include "safetensors/loaded.hpp"
#include "safetensors/load.hpp"
#include "safetensors/write.hpp"
