// SPDX-License-Identifier: MIT
// hipfile.stats(): the level-1 counters as nested dicts, and the level and reset calls.
#include <hipfile++/stats.hpp>

#include "binding.hpp"

namespace hipfile::py_binding {

namespace {

py::dict counters(const hipFileStatsCounters_t& c) {
  py::dict d;
  d["ops"] = c.ops;
  d["bytes"] = c.bytes;
  d["errors"] = c.errors;
  d["time_ns"] = c.time_ns;
  return d;
}

py::dict level1() {
  auto s = hipfile::stats::level1();
  if (!s) raise_error(s.error(), "reading the statistics");
  py::dict out;
  out["level"] = s->level;
  auto phases = hipfile::stats::phases();  // kept at every level
  if (!phases) raise_error(phases.error(), "reading the phase times");
  out["phases"] = phase_dict(*phases);
  for (const auto& [name, path] : kStatsPaths) {
    py::dict ops;
    ops["read"] = counters(hipfile::stats::at(*s, path, hipfile::stats::Op::read));
    ops["write"] = counters(hipfile::stats::at(*s, path, hipfile::stats::Op::write));
    out[name] = ops;
  }
  return out;
}

}  // namespace

py::dict phase_dict(const hipfile::stats::Phases& phases) {
  py::dict out;
  for (std::size_t i = 0; i < phases.size(); ++i) {
    const auto& t = phases[i];
    py::dict d;
    d["count"] = t.count;
    d["seconds"] = static_cast<double>(t.time_ns) / 1e9;
    d["first_seconds"] = static_cast<double>(t.first_ns) / 1e9;
    out[hipfile::stats::name(static_cast<hipfile::stats::Phase>(i))] = d;
  }
  return out;
}

void bind_stats(py::module_& m) {
  m.def("stats", &level1, R"(The library's level-1 statistics: {"level": N, PATH: {"read"|"write": {"ops",
"bytes", "errors", "time_ns"}}} for PATH in engine, host, cufile, amd, and "phases":
{NAME: {"count", "seconds", "first_seconds"}}, where the library's setup and one-time work
went (kept at every level). Counting needs level >= 1 (HIPFILE_STATS_LEVEL or
set_stats_level); see doc/statistics.md.)");
  m.def("stats_reset", [] {
    if (auto r = hipfile::stats::reset(); !r) raise_error(r.error(), "resetting the statistics");
  }, "Sets every counter to zero.");
  m.def("stats_level", [] {
    auto r = hipfile::stats::level();
    if (!r) raise_error(r.error(), "reading the statistics level");
    return *r;
  }, "The statistics level in force (0 = off).");
  m.def("set_stats_level", [](py::handle value) {
    const int level = to_int(value, "level");
    if (auto r = hipfile::stats::set_level(level); !r) raise_error(r.error(), "setting statistics level " + std::to_string(level));
  }, py::arg("level"), "Sets the statistics level (0..3).");
}

}  // namespace hipfile::py_binding
