// SPDX-License-Identifier: MIT
// Catch2's own main: v2 builds it from the header, v3 from its session header.
#if __has_include(<catch2/catch_all.hpp>)
#include <catch2/catch_session.hpp>
int main(int argc, char** argv) { return Catch::Session().run(argc, argv); }
#else
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
#endif
