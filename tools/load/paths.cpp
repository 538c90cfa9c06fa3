// SPDX-License-Identifier: MIT
#include "paths.hpp"

#include "errors.hpp"
#include "file_type.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <nlohmann/json.hpp>
#include <set>

namespace hipfile::tools::load {

namespace {

// An index larger than this is refused by the loader too; it is not read here.
constexpr std::size_t kMaxIndexBytes = 100'000'000;

// Fails when @p path exists and is not a regular file; true when it opened (a regular file).
bool check_regular(const std::string& path, int& fd) {
  std::string problem;
  fd = open_regular(path, O_RDONLY, 0, problem);
  if (fd < 0 && errno == 0) throw Failure{problem};
  return fd >= 0;
}

// The index's text, or "" when it cannot be read in full (the loader then says why).
std::string read_index(int fd) {
  struct stat st {};
  if (::fstat(fd, &st) != 0 || static_cast<std::uint64_t>(st.st_size) > kMaxIndexBytes) return "";
  std::string text(static_cast<std::size_t>(st.st_size), '\0');
  std::size_t got = 0;
  while (got < text.size()) {
    const ssize_t n = ::pread(fd, text.data() + got, text.size() - got, static_cast<off_t>(got));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return "";
    got += static_cast<std::size_t>(n);
  }
  return text;
}

// The shard files an index names, as the loader resolves them (relative to the index's folder).
std::set<std::string> shards_of_index(const std::string& index_path, const std::string& text) {
  std::set<std::string> out;
  const auto doc = nlohmann::json::parse(text, nullptr, false);
  if (doc.is_discarded() || !doc.is_object()) return out;
  const auto map = doc.find("weight_map");
  if (map == doc.end() || !map->is_object()) return out;
  const auto slash = index_path.rfind('/');
  const std::string folder = slash == std::string::npos ? "" : index_path.substr(0, slash + 1);
  for (const auto& file : *map)
    if (file.is_string() && !file.get_ref<const std::string&>().empty()) {
      const std::string& name = file.get_ref<const std::string&>();
      out.insert(name.front() == '/' ? name : folder + name);
    }
  return out;
}

}  // namespace

void check_checkpoint_files(const std::vector<std::string>& paths) {
  const bool index = paths.size() == 1 && paths[0].size() >= 5 && paths[0].compare(paths[0].size() - 5, 5, ".json") == 0;
  for (const std::string& path : paths) {
    int fd = -1;
    if (!check_regular(path, fd)) continue;
    const std::string text = index ? read_index(fd) : "";
    ::close(fd);
    for (const std::string& shard : shards_of_index(path, text)) {
      int shard_fd = -1;
      if (check_regular(shard, shard_fd)) ::close(shard_fd);
    }
  }
}

}  // namespace hipfile::tools::load
