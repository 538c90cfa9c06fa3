// SPDX-License-Identifier: MIT
// Compile-only: the C header is valid C++ and hipFileError_t is [[nodiscard]].
#include <hipfile/hipfile.h>

#include <type_traits>

static_assert(std::is_standard_layout_v<hipFileDriverProps_t>);
static_assert(hipFileParamPropertiesBatchIOTimeoutMs == 11);
static_assert(hipFileParamStreamMemopsBypass == 11);
static_assert(hipFileParamLogDir == 2);

int hipfile_header_cxx_check() { return static_cast<int>(hipFileSuccess); }
