// SPDX-License-Identifier: MIT
#include "scratch.hpp"

#include "errors.hpp"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fmt/format.h>

namespace hipfile::tools::io {
namespace {

// What the signal handler removes. Built in full before it is published, never changed while
// published, so the handler only reads (unlink and rmdir are async-signal-safe).
struct Removal {
  std::vector<std::string> files;
  std::string dir;
};
std::atomic<const Removal*> g_removal{nullptr};
constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP};

void remove_all(const Removal& r) {
  for (const std::string& f : r.files) (void)::unlink(f.c_str());
  (void)::rmdir(r.dir.c_str());
}

// Removes the files, then dies of the same signal with its default action, so the exit status
// still tells the caller what stopped the run.
void on_signal(int sig) {
  if (const Removal* r = g_removal.exchange(nullptr)) remove_all(*r);
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

void publish(const Removal* r) {
  delete g_removal.exchange(r);
}

}  // namespace

ScratchDir::ScratchDir() {
  const char* tmp = std::getenv("TMPDIR");
  std::string pattern = fmt::format("{}/hipfile-io.XXXXXX", tmp != nullptr && *tmp != '\0' ? tmp : "/tmp");
  if (::mkdtemp(pattern.data()) == nullptr)
    throw Failure{fmt::format("cannot create a temporary directory {}: {} (set TMPDIR or give --file)", pattern,
                              std::strerror(errno))};
  dir_ = pattern;
  publish(new Removal{{}, dir_});
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  // A signal ignored when the run started (nohup, a script's background job) stays ignored.
  for (int sig : kSignals) {
    struct sigaction was {};
    if (::sigaction(sig, nullptr, &was) == 0 && was.sa_handler != SIG_IGN) ::sigaction(sig, &sa, nullptr);
  }
}

void ScratchDir::will_hold(std::vector<std::string> paths) { publish(new Removal{std::move(paths), dir_}); }

ScratchDir::~ScratchDir() {
  for (int sig : kSignals) {
    struct sigaction now {};
    if (::sigaction(sig, nullptr, &now) == 0 && now.sa_handler == on_signal) ::signal(sig, SIG_DFL);
  }
  if (const Removal* r = g_removal.exchange(nullptr)) {
    remove_all(*r);
    delete r;
  }
}

}  // namespace hipfile::tools::io
