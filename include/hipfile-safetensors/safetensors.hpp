// SPDX-License-Identifier: MIT
/**
 * @file hipfile-safetensors/safetensors.hpp
 * @brief Model checkpoints in the safetensors format, into and out of GPU memory.
 *
 * ```cpp
 * #include <hipfile-safetensors/safetensors.hpp>
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
 * - hipfile-safetensors/dtype.hpp: Dtype, names, sizes, dtype_of<T> for typed access;
 * - hipfile-safetensors/error.hpp: Errc, Error (code, file, tensor, text, cause), Result<T>;
 * - hipfile-safetensors/header.hpp: TensorInfo, parse_header(), read_header(): the format's rules;
 * - hipfile-safetensors/checkpoint.hpp: Checkpoint: open a file, shards or an index; list tensors;
 * - hipfile-safetensors/load.hpp: LoadOptions, load(): into device memory, in parallel;
 * - hipfile-safetensors/loaded.hpp: LoadedCheckpoint: owned allocations, views, span<T>(), release();
 * - hipfile-safetensors/write.hpp: TensorData, write(): a checkpoint the safetensors package reads.
 *
 * The library libhipfile-safetensors (pkg-config hipfile-safetensors, CMake
 * hipfile::safetensors, Meson dependency('hipfile-safetensors')) over the public C API and
 * hipfile++ (File, DeviceBuffer, Error). It parses JSON with nlohmann-json inside; no header
 * here includes it, so a program using the loader needs no JSON library. Nothing here
 * throws; the headers compile with -fno-exceptions.
 */
#pragma once

#include "dtype.hpp"
#include "error.hpp"
#include "header.hpp"
#include "checkpoint.hpp"
#include "loaded.hpp"
#include "load.hpp"
#include "slice.hpp"
#include "fill.hpp"
#include "stream.hpp"
#include "write.hpp"
