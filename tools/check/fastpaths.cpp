// SPDX-License-Identifier: MIT
#include "fastpaths.hpp"

#include <dlfcn.h>
#include <hipfile/hipfile.h>
#include <hipfile/hipfile_stats.h>
#include <sys/stat.h>
#include <sys/utsname.h>

#include <cstdio>
#include <cstdlib>
#include <fmt/format.h>
#include <fstream>
#include <sstream>

namespace hipfile::tools::check {
namespace {

// Returns the CONFIG_PCI_P2PDMA line's value ("y", "m", "not set") and where it was found.
Finding p2pdma() {
  Finding f{"kernel PCI P2PDMA", false, ""};
  utsname u{};
  uname(&u);
  std::string release = u.release;
  auto scan = [&](std::istream& in, const std::string& where) {
    std::string line;
    while (std::getline(in, line)) {
      if (line == "CONFIG_PCI_P2PDMA=y" || line == "CONFIG_PCI_P2PDMA=m") {
        f.available = true;
        f.detail = fmt::format("{} in {}", line, where);
        return true;
      }
      if (line == "# CONFIG_PCI_P2PDMA is not set") {
        f.detail = fmt::format("CONFIG_PCI_P2PDMA is not set in {}", where);
        return true;
      }
    }
    f.detail = fmt::format("{} does not mention CONFIG_PCI_P2PDMA", where);
    return true;
  };
  for (const std::string& path : {"/boot/config-" + release, "/lib/modules/" + release + "/build/.config"}) {
    std::ifstream in(path);
    if (in && scan(in, path)) return f;
  }
  // No zlib dependency for one file: gzip is on every system that has /proc/config.gz.
  struct stat st {};
  if (stat("/proc/config.gz", &st) == 0) {
    if (std::FILE* pipe = popen("gzip -dc /proc/config.gz 2>/dev/null", "r")) {
      std::string text;
      char buf[65536];
      std::size_t n;
      while ((n = std::fread(buf, 1, sizeof buf, pipe)) > 0) text.append(buf, n);
      pclose(pipe);
      if (!text.empty()) {
        std::istringstream in(text);
        scan(in, "/proc/config.gz");
        return f;
      }
    }
  }
  f.detail = fmt::format("no readable kernel config (/boot/config-{}, /proc/config.gz)", release);
  return f;
}

Finding amd_ais(bool this_platform) {
  Finding f{"AMD AIS (hipAmdFileRead)", false, ""};
  // hipGetProcAddress is not in the HIP subset, so ask the dynamic linker directly.
  void* lib = dlopen("libamdhip64.so", RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) lib = dlopen("libamdhip64.so.6", RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) {
    f.detail = "libamdhip64 not found";
  } else {
    bool read = dlsym(lib, "hipAmdFileRead") != nullptr;
    bool write = dlsym(lib, "hipAmdFileWrite") != nullptr;
    f.available = read && write && this_platform;
    f.detail = read && write ? "libamdhip64 exports hipAmdFileRead/Write (ROCm >= 7.2)"
                             : "libamdhip64 lacks hipAmdFileRead/Write (needs ROCm >= 7.2)";
    dlclose(lib);
  }
  if (!this_platform) f.detail += "; not used by this build (platform is not amd)";
  return f;
}

bool nvidia_fs_loaded() {
  struct stat st {};
  if (stat("/proc/driver/nvidia-fs", &st) == 0) return true;
  std::ifstream modules("/proc/modules");
  std::string line;
  while (std::getline(modules, line))
    if (line.rfind("nvidia_fs ", 0) == 0) return true;
  return false;
}

Finding nvidia_gds(bool this_platform) {
  Finding f{"NVIDIA GDS (cuFile)", false, ""};
  // The library's search order (lib/fastpath/cufile.cpp), HIPFILE_CUFILE_LIBRARY first.
  std::vector<std::string> names;
  const char* env = std::getenv("HIPFILE_CUFILE_LIBRARY");
  const bool named = env != nullptr && *env != '\0';  // then every build tries it
  if (named) names.push_back(env);
  for (const char* n : {"libcufile.so.0", "/usr/local/cuda/lib64/libcufile.so.0",
                        "/usr/local/cuda/targets/x86_64-linux/lib/libcufile.so.0"})
    names.push_back(n);
  void* lib = nullptr;
  for (const std::string& n : names) {
    lib = dlopen(n.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (lib != nullptr) {
      f.detail = n + " loads";
      dlclose(lib);
      break;
    }
  }
  bool nvfs = nvidia_fs_loaded();
  if (lib == nullptr) f.detail = "libcufile.so.0 not found (nor in /usr/local/cuda)";
  f.detail += nvfs ? "; nvidia-fs module loaded" : "; nvidia-fs module not loaded (/proc/driver/nvidia-fs absent)";
  f.available = lib != nullptr && nvfs && (this_platform || named);
  if (!this_platform && !named) f.detail += "; not used by this build (platform is not nvidia)";
  return f;
}

// "fastpath=NAME library=PATH gds=yes|no reason=SENTENCE" (hipfile_stats.h): the value of `key`,
// up to the next known key, or to the end of the line for the last one.
std::string field(const std::string& report, const char* key, const char* next) {
  const std::string k = std::string(key) + "=";
  std::size_t at = report.rfind(k, 0) == 0 ? 0 : report.find(" " + k);
  if (at == std::string::npos) return "?";
  at = report.find(k, at) + k.size();
  const std::size_t end = next != nullptr ? report.find(std::string(" ") + next + "=", at) : std::string::npos;
  return report.substr(at, end == std::string::npos ? std::string::npos : end - at);
}

}  // namespace

Finding library_decision() {
  Finding f{"hipfile's decision", false, ""};
  const hipFileError_t open = hipFileDriverOpen();
  if (open.err != hipFileSuccess) {
    f.detail = fmt::format("hipFileDriverOpen failed: {}", hipFileGetOpErrorString(open.err));
    return f;
  }
  char buf[HIPFILE_FASTPATH_REPORT_MAX];
  const hipFileError_t e = hipFileDriverGetFastpathReport(buf, sizeof buf);
  // The driver stays open (the caller's I/O probes reuse it and close it at the end).
  if (e.err != hipFileSuccess) {
    f.detail = fmt::format("hipFileDriverGetFastpathReport failed: {}", hipFileGetOpErrorString(e.err));
    return f;
  }
  const std::string report = buf;
  const std::string name = field(report, "fastpath", "library");
  f.available = name != "none";
  f.name = fmt::format("hipfile uses: {}", name);
  f.detail = fmt::format("library {}, GDS {}: {}", field(report, "library", "gds"), field(report, "gds", "reason"),
                         field(report, "reason", nullptr));
  return f;
}

std::vector<Finding> probe_fastpaths(const std::string& platform) {
  return {p2pdma(), amd_ais(platform == "amd"), nvidia_gds(platform == "nvidia")};
}

}  // namespace hipfile::tools::check
