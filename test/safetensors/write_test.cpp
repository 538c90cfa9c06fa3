// SPDX-License-Identifier: MIT
// The writer: files that read back identically (from host and device memory), laid out as
// the safetensors package lays them out, and arguments refused before the file is touched.
#include "common.hpp"
#include "temporary.hpp"  // the loader's private temporary file (safetensors/temporary.hpp)

#include <dirent.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#if __has_include(<hip/hip_cpu.h>)
#include <hip/hip_cpu.h>
#endif

using namespace hipfile::test;
using namespace hipfile::test::st;
using sts::Dtype;
using sts::Errc;

namespace {

// Host tensors of every dtype, with pattern data, shapes of odd sizes.
struct HostTensors {
  std::vector<std::vector<std::byte>> data;
  std::vector<sts::TensorData> tensors;
  HostTensors() {
    data.reserve(sts::kDtypeCount + 2);
    for (std::size_t i = 0; i < sts::kDtypeCount; ++i) {
      const Dtype d = sts::dtype_at(i);
      const std::vector<std::uint64_t> shape = sts::dtype_bits(d) % 8 ? std::vector<std::uint64_t>{2, 4}
                                                                       : std::vector<std::uint64_t>{i + 1, 3};
      add("w." + std::string(sts::dtype_name(d)), d, shape, i);
    }
    add("empty", Dtype::BF16, {3, 0}, 90);
    add("scalar", Dtype::I32, {}, 91);
  }
  void add(const std::string& name, Dtype d, std::vector<std::uint64_t> shape, std::uint64_t seed) {
    std::uint64_t bits = sts::dtype_bits(d);
    for (auto x : shape) bits *= x;
    data.push_back(pattern(bits / 8, seed + 10));
    tensors.push_back({name, d, std::move(shape), data.back()});
  }
};

std::vector<std::string> files_in(const std::string& dir) {
  std::vector<std::string> out;
  DIR* d = ::opendir(dir.c_str());
  while (dirent* e = ::readdir(d))
    if (e->d_name[0] != '.') out.emplace_back(e->d_name);
  ::closedir(d);
  std::sort(out.begin(), out.end());
  return out;
}

mode_t mode_of(const std::string& path) {
  struct stat st {};
  REQUIRE(::stat(path.c_str(), &st) == 0);
  return st.st_mode & 07777;
}

bool is_hex(const std::string& s) { return s.find_first_not_of("0123456789abcdef") == std::string::npos; }

// The file type bits of what is at @p path itself (a link is not followed).
mode_t type_at(const std::string& path) {
  struct stat st {};
  REQUIRE(::lstat(path.c_str(), &st) == 0);
  return st.st_mode & S_IFMT;
}

// A listening-free Unix socket bound at @p path (the node stays after the descriptor closes).
void make_socket(const std::string& path) {
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  REQUIRE(path.size() < sizeof addr.sun_path);
  path.copy(addr.sun_path, path.size());
  const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
  REQUIRE(fd >= 0);
  const int bound = ::bind(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr);
  ::close(fd);
  REQUIRE(bound == 0);
}

// write() at a node that is not a regular file: refused with @p what, before anything is
// created (the folder holds only the node), and the node is still what it was.
void expect_refused(const TempDir& dir, const std::string& path, const std::string& what) {
  const mode_t type = type_at(path);
  const auto before = files_in(dir.path());
  std::vector<std::byte> four(4);
  auto r = sts::write(path, {{{"a", Dtype::F32, {1}, four}}});
  REQUIRE_FALSE(r);
  CHECK(r.error().code() == Errc::invalid_argument);
  CHECK(r.error().message() == path + ": " + what);
  CHECK(type_at(path) == type);
  CHECK(files_in(dir.path()) == before);
  auto checked = sts::check_destination(path);
  REQUIRE_FALSE(checked);
  CHECK(checked.error().message() == r.error().message());
}

const std::string kNotRegular = ", not a regular file: a checkpoint replaces only a regular file or takes a missing name";

}  // namespace

TEST_CASE("host tensors of every dtype write and read back identically") {
  TempDir dir;
  const std::string path = dir / "out.safetensors";
  HostTensors h;
  sts::WriteOptions o;
  o.metadata = {{"format", "pt"}, {"note", "h\xc3\xa9"}};
  REQUIRE(sts::write(path, h.tensors, o));
  CHECK(files_in(dir.path()) == std::vector<std::string>{"out.safetensors"});

  auto c = sts::Checkpoint::open(path);
  REQUIRE(c);
  CHECK(c->metadata() == o.metadata);
  CHECK(c->tensors().size() == h.tensors.size());
  CHECK(c->shards()[0].data_start % 8 == 0);
  // Larger elements first, so every offset is a multiple of its element size.
  unsigned last_bits = 64;
  for (const auto& t : c->tensors()) {
    INFO(t.name);
    CHECK(sts::dtype_bits(t.dtype) <= last_bits);
    last_bits = sts::dtype_bits(t.dtype);
    if (last_bits >= 8) CHECK(t.begin % (last_bits / 8) == 0);
  }
  const auto file = read_file(path);
  CHECK(static_cast<char>(file[8]) == '{');
  auto loaded = sts::load(*c);
  REQUIRE(loaded);
  for (std::size_t i = 0; i < h.tensors.size(); ++i) {
    INFO(h.tensors[i].name);
    const auto* t = loaded->find(h.tensors[i].name);
    REQUIRE(t != nullptr);
    CHECK(t->dtype == h.tensors[i].dtype);
    CHECK(t->shape == h.tensors[i].shape);
    CHECK(host_bytes(*t) == h.data[i]);
  }
}

TEST_CASE("a loaded checkpoint written back from device memory is the same checkpoint") {
  TempDir dir;
  const Made made = make_checkpoint(dir / "in.safetensors", {{"a", Dtype::U8, {3}}, {"b", Dtype::F32, {1000}},
                                                             {"c", Dtype::BF16, {(1u << 20) + 1}}});
  auto loaded = sts::load(dir / "in.safetensors");
  REQUIRE(loaded);
  sts::WriteOptions o;
  o.threads = 2;
  REQUIRE(sts::write(dir / "out.safetensors", sts::tensors_of(*loaded), o));
  auto again = sts::load(dir / "out.safetensors");
  REQUIRE(again);
  for (const char* name : {"a", "b", "c"}) CHECK(host_bytes(*again->find(name)) == made.at(name));
  // Reordered for alignment: F32 and BF16 before U8.
  auto c = sts::Checkpoint::open(dir / "out.safetensors");
  REQUIRE(c);
  CHECK(c->tensors()[0].name == "b");
  CHECK(c->tensors()[1].name == "c");
  CHECK(c->tensors()[2].name == "a");
}

TEST_CASE("an empty checkpoint writes and opens") {
  TempDir dir;
  REQUIRE(sts::write(dir / "none.safetensors", {}));
  auto c = sts::Checkpoint::open(dir / "none.safetensors");
  REQUIRE(c);
  CHECK(c->tensors().empty());
  CHECK(read_file(dir / "none.safetensors").size() == 16);  // length + "{}" padded to 8
}

TEST_CASE("bad tensors are refused and the old file is kept") {
  TempDir dir;
  const std::string path = dir / "keep.safetensors";
  write_file(path, pattern(100, 4));
  std::vector<std::byte> four(4), eight(8);
  auto expect = [&](std::vector<sts::TensorData> t, Errc code, const std::string& message) {
    auto r = sts::write(path, t);
    REQUIRE_FALSE(r);
    CHECK(sts::errc_name(r.error().code()) == sts::errc_name(code));
    CHECK(r.error().message() == path + ": " + message);
    CHECK(read_file(path) == pattern(100, 4));
    CHECK(files_in(dir.path()) == std::vector<std::string>{"keep.safetensors"});
  };
  expect({{"a", Dtype::F32, {1}, four}, {"a", Dtype::F32, {1}, four}}, Errc::duplicate_name, "tensor 'a': is given twice");
  expect({{"", Dtype::F32, {1}, four}}, Errc::invalid_argument, "a tensor has an empty name");
  expect({{"__metadata__", Dtype::F32, {1}, four}}, Errc::invalid_argument,
         "tensor '__metadata__': is the reserved key of the metadata");
  expect({{"bad\xff", Dtype::F32, {1}, four}}, Errc::invalid_argument, "a tensor name is not valid UTF-8");
  expect({{"a", Dtype::F32, {3}, eight}}, Errc::size_mismatch, "tensor 'a': shape [3] of F32 is 12 bytes, but the data is 8 bytes");
  expect({{"a", Dtype::F4, {3}, four}}, Errc::size_mismatch, "tensor 'a': shape [3] of F4 is 12 bits, but the data is 4 bytes");
  expect({{"a", Dtype::U64, {1ull << 32, 1ull << 32}, four}}, Errc::invalid_shape, "tensor 'a': shape overflows 64 bits of data");
  sts::WriteOptions o;
  o.metadata = {{"k", "\xc0"}};
  auto r = sts::write(path, {}, o);
  REQUIRE_FALSE(r);
  CHECK(r.error().code() == Errc::invalid_metadata);
}

TEST_CASE("a file that cannot be created is an io_error") {
  TempDir dir;
  const std::string path = dir / "missing-folder/out.safetensors";
  std::vector<std::byte> four(4);
  auto r = sts::write(path, {{{"a", Dtype::F32, {1}, four}}});
  REQUIRE_FALSE(r);
  CHECK(r.error().code() == Errc::io_error);
  CHECK(r.error().cause().sys_errno() == ENOENT);
  const std::string m = r.error().message();
  const std::string start = path + ": cannot create its temporary file: open '" + path + ".tmp.";
  REQUIRE(m.rfind(start, 0) == 0);
  CHECK(is_hex(m.substr(start.size(), 16)));
  CHECK(m.substr(start.size() + 16) == "': No such file or directory (ENOENT)");
}

TEST_CASE("links and files planted at the old predictable temporary names are left alone") {
  TempDir dir;
  const std::string path = dir / "out.safetensors";
  const std::string victim = dir / "victim";
  write_file(victim, pattern(64, 9));
  // PATH.tmp.PID, then PATH.tmp.PID.N for the process's later writes: links, and a file.
  const std::string base = path + ".tmp." + std::to_string(::getpid());
  REQUIRE(::symlink(victim.c_str(), base.c_str()) == 0);
  for (int n = 1; n <= 200; ++n) REQUIRE(::symlink(victim.c_str(), (base + "." + std::to_string(n)).c_str()) == 0);
  write_file(base + ".201", pattern(8, 1));
  const auto planted = files_in(dir.path());

  HostTensors h;
  REQUIRE(sts::write(path, h.tensors));
  CHECK(read_file(victim) == pattern(64, 9));
  CHECK(read_file(base + ".201") == pattern(8, 1));
  struct stat st {};
  REQUIRE(::lstat(path.c_str(), &st) == 0);
  CHECK(S_ISREG(st.st_mode));  // the checkpoint itself, not a renamed link
  auto loaded = sts::load(path);
  REQUIRE(loaded);
  for (std::size_t i = 0; i < h.tensors.size(); ++i) CHECK(host_bytes(*loaded->find(h.tensors[i].name)) == h.data[i]);
  auto now = files_in(dir.path());
  now.erase(std::find(now.begin(), now.end(), "out.safetensors"));
  CHECK(now == planted);  // nothing else left: no temporary
}

namespace {
int suffix_calls = 0;
// "first", then "second", ...: the names a test plants in advance.
int scripted_suffix(std::string& out) {
  static const char* names[] = {"first", "second", "third"};
  out = names[std::min(suffix_calls++, 2)];
  return 0;
}
int same_suffix(std::string& out) {
  ++suffix_calls;
  out = "first";
  return 0;
}
}  // namespace

TEST_CASE("the temporary's name is random and a name that exists is passed over") {
  std::string a, b;
  REQUIRE(sts::detail::random_suffix(a) == 0);
  REQUIRE(sts::detail::random_suffix(b) == 0);
  CHECK(a.size() == 16);
  CHECK(is_hex(a));
  CHECK(a != b);

  TempDir dir;
  const std::string path = dir / "x.safetensors";
  const std::string victim = dir / "victim";
  write_file(victim, pattern(32, 3));
  REQUIRE(::symlink(victim.c_str(), (path + ".tmp.first").c_str()) == 0);
  suffix_calls = 0;
  auto tmp = sts::detail::create_temporary(path, 0600, scripted_suffix);
  REQUIRE(tmp);
  CHECK(tmp->name == path + ".tmp.second");
  CHECK(suffix_calls == 2);
  CHECK(read_file(victim) == pattern(32, 3));

  suffix_calls = 0;  // every name taken: a clean failure after a bounded number of tries
  auto none = sts::detail::create_temporary(path, 0600, same_suffix);
  REQUIRE_FALSE(none);
  CHECK(none.error().code() == Errc::io_error);
  CHECK(none.error().cause().sys_errno() == EEXIST);
  CHECK(suffix_calls == sts::detail::kTemporaryAttempts);
  CHECK(read_file(victim) == pattern(32, 3));
}

TEST_CASE("a replaced file keeps its mode; a new one has 0666 less the umask") {
  TempDir dir;
  HostTensors h;
  const std::string path = dir / "m.safetensors";
  for (mode_t m : {0600, 0640, 0751}) {
    INFO(m);
    write_file(path, pattern(10, 2));
    REQUIRE(::chmod(path.c_str(), m) == 0);
    REQUIRE(sts::write(path, h.tensors));
    CHECK(mode_of(path) == m);
    CHECK(sts::Checkpoint::open(path));
  }
  const mode_t old = ::umask(002);
  const bool wrote = sts::write(dir / "new.safetensors", h.tensors).has_value();
  ::umask(old);
  REQUIRE(wrote);
  CHECK(mode_of(dir / "new.safetensors") == 0664);
}

TEST_CASE("a header above the format's limit is refused before the file is touched") {
  TempDir dir;
  const std::string path = dir / "big.safetensors";
  write_file(path, pattern(100, 4));
  // {"__metadata__":{"k":"..."}} one byte over the limit, then padded to a multiple of 8.
  const std::size_t value = sts::kMaxHeaderBytes - 25 + 1;
  sts::WriteOptions o;
  o.metadata = {{"k", std::string(value, 'x')}};
  auto r = sts::write(path, {}, o);
  REQUIRE_FALSE(r);
  CHECK(r.error().code() == Errc::header_too_large);
  CHECK(r.error().message() == path + ": header of 100000008 bytes is above the format's limit of 100000000 bytes");
  CHECK(read_file(path) == pattern(100, 4));
  CHECK(files_in(dir.path()) == std::vector<std::string>{"big.safetensors"});
}

TEST_CASE("a device span that runs past its allocation is refused before the file is touched") {
  TempDir dir;
  const std::string path = dir / "span.safetensors";
  write_file(path, pattern(100, 4));
  void* p = nullptr;
  REQUIRE(hipMalloc(&p, 16) == hipSuccess);
  to_device(p, pattern(16, 6));
  auto* bytes = static_cast<const std::byte*>(p);
  auto expect = [&](std::vector<sts::TensorData> t, const std::string& message) {
    auto r = sts::write(path, t);
    REQUIRE_FALSE(r);
    CHECK(r.error().code() == Errc::invalid_argument);
    CHECK(r.error().message() == path + ": " + message);
    CHECK(read_file(path) == pattern(100, 4));
    CHECK(files_in(dir.path()) == std::vector<std::string>{"span.safetensors"});
  };
  expect({{"a", Dtype::F32, {8}, {bytes, 32}}},
         "tensor 'a': data of 32 bytes runs past its device allocation (16 bytes from the data to the allocation's end)");
  expect({{"ok", Dtype::U8, {4}, {bytes, 4}}, {"b", Dtype::F32, {4}, {bytes + 8, 16}}},
         "tensor 'b': data of 16 bytes runs past its device allocation (8 bytes from the data to the allocation's end)");
  // The same memory within its allocation writes.
  REQUIRE(sts::write(path, {{{"c", Dtype::F32, {2}, {bytes + 8, 8}}}}));
  auto loaded = sts::load(path);
  REQUIRE(loaded);
  const auto all = pattern(16, 6);
  CHECK(host_bytes(*loaded->find("c")) == std::vector<std::byte>(all.begin() + 8, all.end()));
  CHECK(hipFree(p) == hipSuccess);
}

#if __has_include(<hip/hip_cpu.h>)
TEST_CASE("a failing data write leaves the old file and no temporary") {
  TempDir dir;
  const std::string path = dir / "keep.safetensors";
  write_file(path, pattern(100, 4));
  REQUIRE(::chmod(path.c_str(), 0600) == 0);
  void* p = nullptr;
  REQUIRE(hipMalloc(&p, 16) == hipSuccess);
  hipcpuInjectFault("hipMemcpyAsync", 1, 1000, hipErrorInvalidValue);
  hipcpuInjectFault("hipMemcpy", 1, 1000, hipErrorInvalidValue);
  auto r = sts::write(path, {{{"w", Dtype::F32, {4}, {static_cast<const std::byte*>(p), 16}}}});
  hipcpuClearFaults();
  CHECK(hipFree(p) == hipSuccess);
  REQUIRE_FALSE(r);
  CHECK(r.error().code() == Errc::io_error);
  CHECK(r.error().message().rfind(path + ": tensor 'w': writing 16 bytes at offset ", 0) == 0);
  CHECK(read_file(path) == pattern(100, 4));
  CHECK(mode_of(path) == 0600);
  CHECK(files_in(dir.path()) == std::vector<std::string>{"keep.safetensors"});
}
#endif

TEST_CASE("a FIFO, socket or directory at the path is refused before anything is written") {
  TempDir dir;
  REQUIRE(::mkfifo((dir / "fifo").c_str(), 0600) == 0);
  expect_refused(dir, dir / "fifo", "is a FIFO" + kNotRegular);
  make_socket(dir / "sock");
  expect_refused(dir, dir / "sock", "is a socket" + kNotRegular);
  REQUIRE(::mkdir((dir / "sub").c_str(), 0700) == 0);
  expect_refused(dir, dir / "sub", "is a directory" + kNotRegular);
  expect_refused(dir, dir / "sub/", "is a directory" + kNotRegular);
  // A missing name and a regular file are what the writer takes.
  CHECK(sts::check_destination(dir / "new.safetensors"));
  write_file(dir / "old", pattern(8, 1));
  CHECK(sts::check_destination(dir / "old"));
  auto empty = sts::check_destination("");
  REQUIRE_FALSE(empty);
  CHECK(empty.error().code() == Errc::invalid_argument);
  CHECK(empty.error().message() == "the path is empty");
}

TEST_CASE("a symbolic link at the path is refused, neither replaced nor followed") {
  TempDir dir;
  const std::string target = dir / "target.safetensors";
  write_file(target, pattern(32, 7));
  const std::string what =
      "is a symbolic link: a checkpoint neither replaces a link nor is written through one (name the file it points to)";
  REQUIRE(::symlink("target.safetensors", (dir / "link").c_str()) == 0);
  expect_refused(dir, dir / "link", what);
  CHECK(read_file(target) == pattern(32, 7));
  REQUIRE(::symlink("missing", (dir / "dangling").c_str()) == 0);  // nothing is created at its target either
  expect_refused(dir, dir / "dangling", what);
  REQUIRE(::symlink("/dev/null", (dir / "null").c_str()) == 0);
  expect_refused(dir, dir / "null", what);
  // The folder of the path may be reached through a link: only its last component is examined.
  REQUIRE(::symlink(dir.path().c_str(), (dir / "via").c_str()) == 0);
  HostTensors h;
  REQUIRE(sts::write(dir / "via/through.safetensors", h.tensors));
  CHECK(type_at(dir / "through.safetensors") == S_IFREG);
}

TEST_CASE("character and block devices at the path are refused (root: mknod)") {
  if (::geteuid() != 0) HIPFILE_SKIP("not root: mknod of a device node needs CAP_MKNOD");
  TempDir dir;
  // A copy of /dev/null (1, 3): what a rename as root would have replaced. The block device's
  // numbers need no driver behind them: only the node's type is examined.
  if (::mknod((dir / "null").c_str(), S_IFCHR | 0666, ::makedev(1, 3)) != 0)
    HIPFILE_SKIP("mknod refused (" << std::strerror(errno) << "): no CAP_MKNOD here");
  expect_refused(dir, dir / "null", "is a character device" + kNotRegular);
  REQUIRE(::mknod((dir / "block").c_str(), S_IFBLK | 0600, ::makedev(7, 200)) == 0);
  expect_refused(dir, dir / "block", "is a block device" + kNotRegular);
}

TEST_CASE("a node put at the path during the write is refused at the rename, not replaced") {
  TempDir dir;
  const std::string path = dir / "late.safetensors";
  auto tmp = sts::detail::create_temporary(path, 0600);
  REQUIRE(tmp);
  const std::string name = tmp->name;
  REQUIRE(::mkfifo(path.c_str(), 0600) == 0);  // after write()'s first check
  bool renamed = false;
  auto r = sts::detail::replace_with(path, *tmp, renamed);
  REQUIRE_FALSE(r);
  CHECK_FALSE(renamed);
  CHECK(r.error().message() == path + ": is a FIFO" + kNotRegular);
  CHECK(type_at(path) == S_IFIFO);
  CHECK(type_at(name) == S_IFREG);  // write() removes its temporary after this failure
}
