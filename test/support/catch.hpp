// SPDX-License-Identifier: MIT
// Catch2 v2 (Debian 12: one header) or v3 (Ubuntu 24.04: a library with many headers). The
// tests use only what both have: TEST_CASE, SECTION, REQUIRE, CHECK, GENERATE, CAPTURE, INFO,
// WARN and StringMaker, and HIPFILE_SKIP (skip.hpp) where a case cannot check anything.
#pragma once

#if defined(HIPFILE_CATCH2_V3)
#include <catch2/catch_all.hpp>
#else
#include <catch2/catch.hpp>
#endif

#include "skip.hpp"
