// SPDX-License-Identifier: MIT
// hipfile-stats: show libhipfile's I/O statistics without any socket.
//   hipfile-stats -- PROGRAM ARGS...   run PROGRAM with HIPFILE_STATS_FILE set to a private temp
//                                      file, wait, print its report; exit with PROGRAM's status
//   hipfile-stats FILE                 pretty-print a report written through HIPFILE_STATS_FILE
#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

extern char** environ;

namespace {

// The manual page: -h/--help prints it. Keep it true to main() and run().
constexpr const char* kUsage = R"(NAME
    hipfile-stats - show libhipfile's I/O statistics of a program, or of a report file

SYNOPSIS
    hipfile-stats -- PROGRAM [ARG]...
    hipfile-stats FILE

DESCRIPTION
    The library counts every request it serves, per path (engine: the staging engine into
    device memory; host: host or managed memory; cufile, amd: the fastpaths) and operation
    (read, write): ops, bytes, errors and total time, and at higher statistics levels size and
    latency histograms and per-device counters. It writes a report file where
    HIPFILE_STATS_FILE points, at the last driver close, at process exit and on
    hipFileStatsWrite. No socket is involved.
    hipfile-stats -- PROGRAM [ARG]...
        Creates a private directory (mkdtemp, mode 0700) under $TMPDIR, runs PROGRAM with its
        arguments (searched in PATH) with HIPFILE_STATS_FILE set to a file in it, waits for
        it, prints the report, removes the file and the directory, and exits with PROGRAM's
        status. PROGRAM's own output is left alone; the report follows it on stdout.
    hipfile-stats FILE
        Prints a report that a program wrote through HIPFILE_STATS_FILE. FILE must be a
        regular file of at most 16 MiB (a FIFO, a device or a directory is refused, so the
        read never waits or runs without end).
    Bytes of the report outside printable ASCII (in a path, say) are shown as \xNN, so that a
    name cannot send control sequences to the terminal.
    The report is a table of the paths that saw I/O: ops, bytes, errors, average latency and
    bandwidth (GB/s = 1e9 bytes/s); then, per path and operation, the bytes moved through the
    page cache and with O_DIRECT (an O_DIRECT client's read of cached data is served from the
    page cache); then the histograms (level 2 and up, power-of-two buckets
    of bytes and of ns), or "no I/O recorded".

OPTIONS
    --
        Run the program that follows instead of reading a file. Must be the first argument.
    FILE
        A report file; use ./NAME for a file whose name starts with '-'.
    -h, --help
        Print this manual and exit 0.

ENVIRONMENT
    HIPFILE_STATS_FILE
        Where libhipfile writes its report. The -- form sets it for PROGRAM (replacing any
        value); the FILE form reads a file written through it.
    HIPFILE_STATS_LEVEL
        PROGRAM's statistics level: 0 nothing, 1 counters (the default), 2 and histograms,
        3 and per-device counters.
    TMPDIR
        Where the -- form creates its private directory (default /tmp).

EXIT STATUS
    FILE form:
    0   the report was printed
    1   FILE cannot be read, is not a regular file, is larger than 16 MiB or is not a
        hipfile statistics report
    2   usage error: no argument, more than one FILE, an unknown option, -- without PROGRAM
    -- form:
    N   PROGRAM's exit status (a missing report is reported on stderr but does not change it)
    128+N  PROGRAM was killed by signal N
    125 the private directory cannot be created
    127 PROGRAM cannot be run

EXAMPLES
    hipfile-stats -- hipfile-io -s 256M --reps 1 --baselines none
        The statistics of one hipfile-io run.
    HIPFILE_STATS_LEVEL=2 hipfile-stats -- hipfile-cp -q a.bin b.bin
        A copy, with size and latency histograms.
    HIPFILE_STATS_FILE=/tmp/app.stats ./app; hipfile-stats /tmp/app.stats
        Keep the report of a program, print it later.

SEE ALSO
    hipfile-io(1), hipfile-cp(1), hipfile-check(1), doc/statistics.md, doc/configuration.md
)";

int usage_error(const std::string& message) {
  std::fprintf(stderr, "hipfile-stats: %s\nTry 'hipfile-stats --help'.\n", message.c_str());
  return 2;
}

std::string human(unsigned long long bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(bytes);
  int u = 0;
  while (v >= 1024 && u < 4) v /= 1024, ++u;
  char buf[32];
  std::snprintf(buf, sizeof buf, u == 0 ? "%.0f %s" : "%.1f %s", v, units[u]);
  return buf;
}

// "source PATH OP cache_bytes N direct_bytes N": how the bytes reached or left the file.
void print_sources(const std::vector<std::string>& lines, std::FILE* out) {
  if (lines.empty()) return;
  std::fprintf(out, "%-14s %-5s %16s %12s %16s %12s\n", "path", "op", "page cache", "", "O_DIRECT", "");
  for (const std::string& line : lines) {
    std::istringstream ls(line);
    std::string word, name, op, k;
    unsigned long long cache = 0, direct = 0;
    ls >> word >> name >> op >> k >> cache >> k >> direct;
    std::fprintf(out, "%-14s %-5s %16llu %12s %16llu %12s\n", name.c_str(), op.c_str(), cache,
                 ("(" + human(cache) + ")").c_str(), direct, ("(" + human(direct) + ")").c_str());
  }
}

// "phase NAME count N time_ns N first_ns N": the library's setup and one-time work.
void print_phases(const std::vector<std::string>& lines, std::FILE* out) {
  if (lines.empty()) return;
  std::fprintf(out, "%-20s %8s %12s %12s\n", "phase", "calls", "total ms", "first ms");
  for (const std::string& line : lines) {
    std::istringstream ls(line);
    std::string word, name, k;
    unsigned long long count = 0, ns = 0, first = 0;
    ls >> word >> name >> k >> count >> k >> ns >> k >> first;
    std::fprintf(out, "%-20s %8llu %12.3f %12.3f\n", name.c_str(), count, static_cast<double>(ns) / 1e6,
                 static_cast<double>(first) / 1e6);
  }
}

// Prints the report; false when it is not a hipfile-stats report.
bool print_report(const std::string& text, std::FILE* out) {
  std::istringstream in(text);
  std::string line, word;
  if (!std::getline(in, line) || line.rfind("hipfile-stats ", 0) != 0) return false;
  std::string pid = "?", level = "?";
  std::vector<std::string> hist, sources, phases;
  bool header = false, any = false;
  while (std::getline(in, line)) {
    std::istringstream ls(line);
    ls >> word;
    if (word == "pid") {
      ls >> pid;
    } else if (word == "level") {
      ls >> level;
      std::fprintf(out, "hipfile statistics of pid %s (level %s)\n", pid.c_str(), level.c_str());
    } else if (word == "path" || word == "device") {
      std::string name, op, k;
      unsigned long long ops = 0, bytes = 0, errors = 0, ns = 0;
      ls >> name >> op >> k >> ops >> k >> bytes >> k >> errors >> k >> ns;
      if (ops == 0) continue;
      if (!header) {
        std::fprintf(out, "%-14s %-5s %10s %16s %12s %8s %12s %12s\n", "path", "op", "ops", "bytes", "", "errors",
                     "avg latency", "bandwidth");
        header = true;
      }
      any = true;
      const double secs = static_cast<double>(ns) / 1e9;
      char avg[32], bw[32];
      std::snprintf(avg, sizeof avg, "%.1f us", static_cast<double>(ns) / 1e3 / static_cast<double>(ops));
      if (secs > 0)
        std::snprintf(bw, sizeof bw, "%.2f GB/s", static_cast<double>(bytes) / secs / 1e9);
      else
        std::snprintf(bw, sizeof bw, "-");
      std::string label = word == "device" ? "device " + name : name;
      std::fprintf(out, "%-14s %-5s %10llu %16llu %12s %8llu %12s %12s\n", label.c_str(), op.c_str(), ops, bytes,
                   ("(" + human(bytes) + ")").c_str(), errors, avg, bw);
    } else if (word == "size_log2" || word == "latency_ns_log2") {
      hist.push_back(line);
    } else if (word == "source") {
      sources.push_back(line);
    } else if (word == "phase") {
      phases.push_back(line);
    }
  }
  if (!any) std::fprintf(out, "no I/O recorded\n");
  print_sources(sources, out);
  print_phases(phases, out);
  for (const std::string& h : hist) {
    std::istringstream hs(h);
    std::string kind, name, op, cell;
    hs >> kind >> name >> op;
    std::fprintf(out, "%s histogram, %s %s:", kind == "size_log2" ? "size" : "latency", name.c_str(), op.c_str());
    while (hs >> cell) {
      auto colon = cell.find(':');
      std::fprintf(out, " %s2^%s: %s", kind == "size_log2" ? "" : "ns ", cell.substr(0, colon).c_str(),
                   cell.substr(colon + 1).c_str());
    }
    std::fprintf(out, "\n");
  }
  return true;
}

// A report is a few lines per file and operation; anything larger is not one (/dev/zero, a
// stray multi-gigabyte file), so reading stops here instead of filling memory.
constexpr std::size_t kMaxReportBytes = std::size_t{16} << 20;

// Bytes outside printable ASCII as \xNN, line breaks kept: the names in a report are file paths,
// and one holding an escape sequence must not reach the terminal as one.
std::string shown(const std::string& text) {
  std::string out;
  for (unsigned char c : text) {
    if ((c >= 0x20 && c < 0x7f) || c == '\n') {
      out += static_cast<char>(c);
    } else {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    }
  }
  return out;
}

// Up to kMaxReportBytes + 1 bytes of @p fd, so that a larger file is seen to be larger.
bool read_bounded(int fd, std::string& raw, std::string& problem) {
  char block[65536];
  while (raw.size() <= kMaxReportBytes) {
    const ssize_t n = ::read(fd, block, sizeof block);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return problem = std::strerror(errno), false;
    if (n == 0) return true;
    raw.append(block, static_cast<std::size_t>(n));
  }
  return problem = "it is larger than 16 MiB, which no report is", false;
}

// The report at @p path into @p text (escaped with shown()); on failure, why, in @p problem.
// Opened without blocking (a FIFO would wait for a writer) and read only if a regular file.
bool slurp(const std::string& path, std::string& text, std::string& problem) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return problem = std::strerror(errno), false;
  struct stat st {};
  std::string raw;
  bool ok = false;
  if (::fstat(fd, &st) != 0) problem = std::strerror(errno);
  else if (S_ISDIR(st.st_mode)) problem = "it is a directory";
  else if (!S_ISREG(st.st_mode)) problem = "it is not a regular file";
  else ok = read_bounded(fd, raw, problem);
  ::close(fd);
  if (ok) text = shown(raw);
  return ok;
}

int run(char** argv) {
  const char* tmp = std::getenv("TMPDIR");
  std::string dir = std::string(tmp && *tmp ? tmp : "/tmp") + "/hipfile-stats.XXXXXX";
  if (::mkdtemp(dir.data()) == nullptr) {  // 0700: nobody else can place a file or link there
    std::fprintf(stderr, "hipfile-stats: cannot create a temporary directory: %s\n", std::strerror(errno));
    return 125;
  }
  const std::string report = dir + "/report";
  ::setenv("HIPFILE_STATS_FILE", report.c_str(), 1);
  pid_t pid = 0;
  int rc = ::posix_spawnp(&pid, argv[0], nullptr, nullptr, argv, environ);
  if (rc != 0) {
    std::fprintf(stderr, "hipfile-stats: cannot run %s: %s\n", shown(argv[0]).c_str(), std::strerror(rc));
    ::rmdir(dir.c_str());
    return 127;
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  std::string text, problem;
  std::fflush(stdout);
  if (::access(report.c_str(), F_OK) != 0) {
    std::fprintf(stderr, "hipfile-stats: %s wrote no statistics (did it open the hipFile driver?)\n", shown(argv[0]).c_str());
  } else if (!slurp(report, text, problem)) {
    std::fprintf(stderr, "hipfile-stats: the report of %s cannot be read: %s\n", shown(argv[0]).c_str(), problem.c_str());
  } else if (!print_report(text, stdout)) {
    std::fprintf(stderr, "hipfile-stats: the report of %s is not readable\n", shown(argv[0]).c_str());
  }
  ::unlink(report.c_str());
  ::rmdir(dir.c_str());
  return code;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc >= 2 && std::strcmp(argv[1], "--") == 0) {
    if (argc < 3) return usage_error("-- needs a PROGRAM to run");
    return run(argv + 2);
  }
  if (argc < 2) return usage_error("missing FILE, or -- PROGRAM");
  for (int a = 1; a < argc; ++a)
    if (std::strcmp(argv[a], "-h") == 0 || std::strcmp(argv[a], "--help") == 0) {
      std::fputs(kUsage, stdout);
      return 0;
    }
  if (argv[1][0] == '-' && argv[1][1] != '\0') return usage_error("unknown option '" + std::string(argv[1]) + "'");
  if (argc > 2) return usage_error("one FILE at most; to run a program, put -- before it");
  std::string text, problem;
  const std::string file = shown(argv[1]);
  if (!slurp(argv[1], text, problem)) {
    std::fprintf(stderr, "hipfile-stats: cannot read %s: %s\n", file.c_str(), problem.c_str());
    return 1;
  }
  if (!print_report(text, stdout)) {
    std::fprintf(stderr, "hipfile-stats: %s is not a hipfile statistics report\n", file.c_str());
    return 1;
  }
  return 0;
}
