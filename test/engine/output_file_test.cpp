// SPDX-License-Identifier: MIT
// The files the library writes (statistics report, log): no symbolic link in any component, never
// a FIFO or a device (and opening one never blocks), another user's file never replaced or
// chmod'ed; a file the library creates is 0600.
#include <fcntl.h>
#include <hipfile/hipfile_stats.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>

#include "../c_api/helpers.hpp"
#include "sys/log.hpp"
#include "sys/output_file.hpp"

using namespace hipfile::test;
using hipfile::sys::open_output_file;
using hipfile::sys::OutputMode;

namespace {

// A fresh directory under the test directory, removed (with what the tests leave) at the end.
struct TempDir {
  std::string path;
  TempDir() {
    path = test_dir() + "/hipfile-out-XXXXXX";
    REQUIRE(::mkdtemp(path.data()) != nullptr);
  }
  ~TempDir() { (void)std::system(("rm -rf '" + path + "'").c_str()); }
  std::string operator/(const char* name) const { return path + "/" + name; }
};

void put(const std::string& path, const char* text, mode_t mode) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
  REQUIRE(fd >= 0);
  REQUIRE(::write(fd, text, std::strlen(text)) == static_cast<ssize_t>(std::strlen(text)));
  REQUIRE(::fchmod(fd, mode) == 0);
  ::close(fd);
}

std::string contents(const std::string& path) {
  auto bytes = read_file(path);
  return std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size());
}

mode_t mode_of(const std::string& path) {
  struct stat st {};
  REQUIRE(::lstat(path.c_str(), &st) == 0);
  return st.st_mode & 07777;
}

}  // namespace

TEST_CASE("A new report file is created 0600; the caller's own file is replaced and made 0600", "[output]") {
  TempDir dir;
  REQUIRE(hipFileStatsWrite((dir / "new.txt").c_str()).err == hipFileSuccess);
  CHECK(mode_of(dir / "new.txt") == 0600);
  CHECK(contents(dir / "new.txt").rfind("hipfile-stats", 0) == 0);
  put(dir / "mine.txt", "old contents that are longer than nothing\n", 0644);
  REQUIRE(hipFileStatsWrite((dir / "mine.txt").c_str()).err == hipFileSuccess);
  CHECK(mode_of(dir / "mine.txt") == 0600);
  CHECK(contents(dir / "mine.txt").rfind("hipfile-stats", 0) == 0);
}

TEST_CASE("No symbolic link is followed in any component of the path", "[output]") {
  TempDir dir;
  REQUIRE(::mkdir((dir / "real").c_str(), 0700) == 0);
  put(dir / "real/target.txt", "keep\n", 0644);
  REQUIRE(::symlink((dir / "real").c_str(), (dir / "linkdir").c_str()) == 0);
  REQUIRE(::symlink((dir / "real/target.txt").c_str(), (dir / "link.txt").c_str()) == 0);
  const OutputMode mode = GENERATE(OutputMode::Append, OutputMode::Replace);
  CHECK(open_output_file((dir / "linkdir/target.txt").c_str(), mode) == -ELOOP);  // an intermediate directory
  CHECK(open_output_file((dir / "linkdir/new.txt").c_str(), mode) == -ELOOP);
  CHECK(open_output_file((dir / "link.txt").c_str(), mode) == -ELOOP);            // the last component
  CHECK(hipFileStatsWrite((dir / "linkdir/target.txt").c_str()).err == hipFileInvalidValue);
  CHECK(contents(dir / "real/target.txt") == "keep\n");
  CHECK(mode_of(dir / "real/target.txt") == 0644);
  CHECK(::access((dir / "real/new.txt").c_str(), F_OK) != 0);
}

TEST_CASE("A FIFO is never written and opening it never blocks", "[output]") {
  TempDir dir;
  const std::string fifo = dir / "fifo";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  const bool reader = GENERATE(false, true);
  CAPTURE(reader);
  int r = reader ? ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC) : -1;
  // Without a reader a blocking open would wait forever; with one the write would go to it.
  CHECK(open_output_file(fifo.c_str(), OutputMode::Append) < 0);
  CHECK(open_output_file(fifo.c_str(), OutputMode::Replace) < 0);
  CHECK(hipFileStatsWrite(fifo.c_str()).err == hipFileInvalidValue);
  hipfile::engine::log::configure(hipfile::engine::log::Level::Warn, fifo);  // falls back to stderr
  hipfile::engine::log::configure(hipfile::engine::log::Level::Warn, "");
  if (r >= 0) {
    char byte;
    CHECK(::read(r, &byte, 1) <= 0);  // nothing reached the reader
    ::close(r);
  }
}

TEST_CASE("A device node is never written, truncated or chmod'ed", "[output][environment]") {
  TempDir dir;
  const std::string node = dir / "null";
  if (::mknod(node.c_str(), S_IFCHR | 0666, makedev(1, 3)) != 0)
    HIPFILE_SKIP("cannot create a device node (needs root and a file system without nodev)");
  REQUIRE(::chmod(node.c_str(), 0666) == 0);
  CHECK(open_output_file(node.c_str(), OutputMode::Replace) == -EINVAL);
  CHECK(open_output_file(node.c_str(), OutputMode::Append) == -EINVAL);
  CHECK(hipFileStatsWrite(node.c_str()).err == hipFileInvalidValue);
  CHECK(mode_of(node) == 0666);
}

TEST_CASE("Another user's file is never replaced or chmod'ed", "[output][environment]") {
  TempDir dir;
  const std::string theirs = dir / "theirs.txt";
  put(theirs, "their data\n", 0666);
  if (::geteuid() != 0 || ::chown(theirs.c_str(), 65534, 65534) != 0)
    HIPFILE_SKIP("cannot make a file owned by another user (needs root)");
  CHECK(open_output_file(theirs.c_str(), OutputMode::Replace) == -EPERM);
  CHECK(hipFileStatsWrite(theirs.c_str()).err == hipFileInvalidValue);
  CHECK(contents(theirs) == "their data\n");
  CHECK(mode_of(theirs) == 0666);
  // Appending (the log) to a writable file changes neither its contents' start nor its mode.
  int fd = open_output_file(theirs.c_str(), OutputMode::Append);
  REQUIRE(fd >= 0);
  ::close(fd);
  CHECK(contents(theirs) == "their data\n");
  CHECK(mode_of(theirs) == 0666);
}
