// SPDX-License-Identifier: MIT
#include "stacks.hpp"

#include <dirent.h>
#include <execinfo.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>

namespace hipfile::test {
namespace {

std::atomic<int> g_fd{2};
std::atomic<bool> g_done{false};

void write_stack(int, siginfo_t*, void*) {
  void* frames[64];
  const int n = backtrace(frames, 64);
  char head[64];
  const int len = std::snprintf(head, sizeof head, "--- thread %ld\n", static_cast<long>(syscall(SYS_gettid)));
  if (len > 0) (void)!write(g_fd, head, static_cast<std::size_t>(len));
  backtrace_symbols_fd(frames, n, g_fd);
  g_done = true;
}

}  // namespace

void dump_thread_stacks(int fd) {
  g_fd = fd;
  void* warm[1];
  (void)backtrace(warm, 1);  // loads the unwinder now, not inside the signal handler
  struct sigaction sa {};
  sa.sa_sigaction = write_stack;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGUSR2, &sa, nullptr);
  const long self = syscall(SYS_gettid);
  DIR* tasks = opendir("/proc/self/task");
  if (!tasks) return;
  while (dirent* e = readdir(tasks)) {
    const long tid = std::strtol(e->d_name, nullptr, 10);
    if (tid <= 0 || tid == self) continue;
    g_done = false;
    if (syscall(SYS_tgkill, getpid(), tid, SIGUSR2) != 0) continue;
    for (int i = 0; i < 100 && !g_done; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  closedir(tasks);
}

}  // namespace hipfile::test
