// SPDX-License-Identifier: MIT
// A CPU dereference of device memory must crash, as it would with a real GPU.
#include "check.hpp"

#include <csignal>
#include <sys/wait.h>
#include <unistd.h>

namespace {

// Runs `body` in a forked child and returns the signal that killed it (0 if it exited).
template <class F>
int child_signal(F body) {
    pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        // Catch2 (and sanitizers) install SIGSEGV handlers; the child must die the plain way.
        std::signal(SIGSEGV, SIG_DFL);
        body();
        _exit(0);
    }
    int status = 0;
    REQUIRE(waitpid(pid, &status, 0) == pid);
    return WIFSIGNALED(status) ? WTERMSIG(status) : 0;
}

}  // namespace

TEST_CASE("reading device memory from the CPU raises SIGSEGV", "[crash]") {
    char *d = nullptr;
    HIP_OK(hipMalloc(reinterpret_cast<void **>(&d), 4096));
    HIP_OK(hipMemset(d, 1, 4096));  // the bytes exist; only the CPU view is inaccessible
    CHECK(child_signal([&] {
              volatile char c = d[0];
              (void)c;
          }) == SIGSEGV);
    CHECK(child_signal([&] {
              volatile char c = d[4000];  // interior
              (void)c;
          }) == SIGSEGV);
    HIP_OK(hipFree(d));
}

TEST_CASE("writing device memory from the CPU raises SIGSEGV", "[crash]") {
    char *d = nullptr;
    HIP_OK(hipMalloc(reinterpret_cast<void **>(&d), 100));
    CHECK(child_signal([&] { *reinterpret_cast<volatile char *>(d + 10) = 1; }) == SIGSEGV);
    HIP_OK(hipFree(d));
}

TEST_CASE("host-accessible kinds do not crash", "[crash]") {
    void *h = nullptr, *m = nullptr;
    HIP_OK(hipHostMalloc(&h, 64, 0));
    HIP_OK(hipMallocManaged(&m, 64, hipMemAttachGlobal));
    CHECK(child_signal([&] {
              static_cast<volatile char *>(h)[1] = 1;
              static_cast<volatile char *>(m)[1] = 1;
          }) == 0);
    HIP_OK(hipHostFree(h));
    HIP_OK(hipFree(m));
}
