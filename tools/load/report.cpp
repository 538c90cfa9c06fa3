// SPDX-License-Identifier: MIT
#include "report.hpp"

#include "args.hpp"
#include "json_writer.hpp"
#include "printable.hpp"

#include <algorithm>
#include <cstdio>
#include <fmt/format.h>
#include <set>

namespace hipfile::tools::load {

namespace sts = hipfile::safetensors;

namespace {

struct Figures {
  double best = 0, median = 0, read_best = 0;
  const Pass* best_pass = nullptr;
};

Figures figures(const Report& r) {
  std::vector<double> s;
  for (const auto& p : r.passes) s.push_back(p.seconds);
  std::sort(s.begin(), s.end());
  Figures f;
  f.best = s.front();
  f.median = s.size() % 2 ? s[s.size() / 2] : (s[s.size() / 2 - 1] + s[s.size() / 2]) / 2;
  f.best_pass = &*std::min_element(r.passes.begin(), r.passes.end(),
                                   [](const Pass& a, const Pass& b) { return a.seconds < b.seconds; });
  f.read_best = std::min_element(r.passes.begin(), r.passes.end(), [](const Pass& a, const Pass& b) {
                  return a.stats.read_seconds < b.stats.read_seconds;
                })->stats.read_seconds;
  return f;
}

std::vector<int> devices_used(const Loaded& l) {
  std::set<int> d;
  for (const auto& t : l.tensors) d.insert(t.device);
  return {d.begin(), d.end()};
}

std::string gpus_text(const std::vector<int>& d) {
  if (d.empty()) return "no GPU";
  std::string s = d.size() == 1 ? "GPU " : "GPUs ";
  for (std::size_t i = 0; i < d.size(); ++i) s += (i ? "," : "") + std::to_string(d[i]);
  return s;
}

// "7.26 GB (6.8 GiB)": the decimal figure the rates use, and the binary one.
std::string size_text(std::uint64_t bytes) { return fmt::format("{:.3f} GB ({})", bytes / 1e9, format_size(bytes)); }

double ratio(double a, double b) { return b > 0 ? a / b : 0; }

double phase_seconds(const sts::LoadStats& s, hipfile::stats::Phase p) {
  return static_cast<double>(s.library_phases[static_cast<std::size_t>(p)].time_ns) / 1e9;
}

// {"plan": s, ..., "total": s, "library": {"driver_open": {"count": n, "seconds": s}, ...}}
void breakdown_json(JsonWriter& j, const sts::LoadStats& s) {
  j.begin_object();
  j.field("plan", s.plan_seconds).field("allocate", s.allocate_seconds).field("register", s.register_seconds);
  j.field("read", s.read_seconds).field("finish", s.finish_seconds).field("total", s.total_seconds);
  j.key("library").begin_object();
  for (std::size_t i = 0; i < s.library_phases.size(); ++i) {
    const auto phase = static_cast<hipfile::stats::Phase>(i);
    j.key(hipfile::stats::name(phase)).begin_object();
    j.field("count", s.library_phases[i].count).field("seconds", phase_seconds(s, phase)).end_object();
  }
  j.end_object().end_object();
}

// --slice / --rank: what was asked, the parts that are slices, and what the files gave.
void slicing_text(const Report& r, const Options& o) {
  if (!o.slicing()) return;
  std::size_t sliced = 0;
  for (const auto& t : r.loaded->tensors) sliced += t.slice.has_value();
  const std::string asked = o.slice ? fmt::format("slice {}:{}:{}", o.slice->dim, o.slice->start, o.slice->stop)
                                    : fmt::format("rank {} of {}, {} layout", o.rank, o.world_size,
                                                  layout_name(o.layout.value_or(Layout::column)));
  const std::uint64_t all = r.checkpoint->bytes();
  fmt::print("slices:     {}: {} tensors sliced, {} whole; {} of the checkpoint's {} ({:.1f} %), {} read\n", asked, sliced,
             r.loaded->tensors.size() - sliced, size_text(r.loaded->bytes), size_text(all),
             all ? 100.0 * static_cast<double>(r.loaded->bytes) / static_cast<double>(all) : 0.0,
             size_text(r.loaded->stats.bytes_read));
}

// "slice", "rank", "world_size", "layout": null without --slice / --rank.
void slicing_json(JsonWriter& j, const Options& o) {
  if (o.slice) j.field("slice", fmt::format("{}:{}:{}", o.slice->dim, o.slice->start, o.slice->stop));
  else j.key("slice").null();
  if (o.rank < 0) {
    j.key("rank").null().key("world_size").null().key("layout").null();
    return;
  }
  j.field("rank", o.rank).field("world_size", o.world_size).field("layout", layout_name(o.layout.value_or(Layout::column)));
}

std::string list_line(const Placed& t) {
  const std::string slice = t.slice ? fmt::format("  slice {} of {}", slice_text(*t.slice), sts::shape_text(t.tensor_shape)) : "";
  return fmt::format("  {}  {}  {}  GPU {}  {} bytes{}\n", printable(t.name), t.dtype, sts::shape_text(t.shape), t.device,
                     t.bytes, slice);
}

}  // namespace

void print_text(const Report& r, const Options& o) {
  const auto& c = *r.checkpoint;
  const auto& l = *r.loaded;
  const Figures f = figures(r);
  const double rate = gbps(l.bytes, f.best);
  std::string meta;
  for (const auto& [k, v] : c.metadata())
    meta += fmt::format("{}{}={}", meta.empty() ? "; metadata " : ", ", printable(k), printable(v));
  fmt::print("checkpoint: {} ({} file{}, {} tensors, {}{})\n", printable(o.paths[0]) + (o.paths.size() == 1 ? "" : " ..."),
             c.shards().size(), c.shards().size() == 1 ? "" : "s", c.tensors().size(), size_text(c.bytes()), meta);
  fmt::print("loaded:     {} tensors, {} onto {} in {} read{} ({} allocation{}), {}\n", l.tensors.size(),
             size_text(l.bytes), gpus_text(devices_used(l)), l.stats.reads, l.stats.reads == 1 ? "" : "s",
             l.allocations, l.allocations == 1 ? "" : "s",
             std::string(o.cold ? "cold (page cache dropped)" : "hot") + (o.direct ? ", O_DIRECT" : ""));
  fmt::print("time:       {:.4f} s{} (allocate {:.4f} s, read {:.4f} s)\n", f.best,
             r.passes.size() > 1 ? fmt::format(" best of {}, median {:.4f} s", r.passes.size(), f.median) : "",
             f.best_pass->stats.allocate_seconds, f.best_pass->stats.read_seconds);
  const sts::LoadStats& first = r.passes.front().stats;
  fmt::print("first load: {:.4f} s: plan {:.4f}, allocate {:.4f}, register {:.4f} (driver open {:.4f}), read {:.4f} "
             "(of which thread time: engine start {:.4f}, threads {:.4f}, pinned staging {:.4f}), finish {:.4f}\n",
             first.total_seconds, first.plan_seconds, first.allocate_seconds, first.register_seconds,
             phase_seconds(first, hipfile::stats::Phase::driver_open), first.read_seconds,
             phase_seconds(first, hipfile::stats::Phase::engine_start),
             phase_seconds(first, hipfile::stats::Phase::thread_start),
             phase_seconds(first, hipfile::stats::Phase::pinned_staging), first.finish_seconds);
  slicing_text(r, o);
  fmt::print("rate:       {:.2f} GB/s = {:.2f}x the pinned host-to-device copy ({:.2f} GB/s, measured in this run)\n",
             rate, ratio(rate, r.pinned_gbps), r.pinned_gbps);
  if (r.write_seconds >= 0)
    fmt::print("write:      {} in {:.4f} s, {:.2f} GB/s\n", printable(o.write_back), r.write_seconds, gbps(l.bytes, r.write_seconds));
  fmt::print("verify:     {}\n", r.verify == "passed" ? fmt::format("passed ({} tensors compared with pread)", l.tensors.size())
                                                       : r.verify);
  if (!o.list) return;
  for (const auto& t : l.tensors) fmt::print("{}", list_line(t));
}

void print_json(const Report& r, const Options& o) {
  const auto& l = *r.loaded;
  const Figures f = figures(r);
  JsonWriter j;
  j.begin_object().field("tool", "hipfile-load").field("command", r.command);
  j.key("files").begin_array();
  for (const auto& s : r.checkpoint->shards()) j.value(s.path);
  j.end_array();
  j.field("tensors", static_cast<std::uint64_t>(l.tensors.size())).field("bytes", l.bytes);
  j.field("checkpoint_bytes", r.checkpoint->bytes());
  j.key("devices").begin_array();
  for (int d : devices_used(l)) j.value(d);
  j.end_array();
  j.field("reads", l.stats.reads).field("bytes_read", l.stats.bytes_read);
  j.field("allocations", static_cast<std::uint64_t>(l.allocations));
  slicing_json(j, o);
  j.field("cache", o.cold ? "cold" : "hot").field("direct", o.direct).field("parallel", o.parallel);
  j.field("reps", o.reps);
  j.key("seconds").begin_array();
  for (const auto& p : r.passes) j.value(p.seconds);
  j.end_array();
  j.field("seconds_best", f.best).field("seconds_median", f.median);
  j.field("allocate_seconds", f.best_pass->stats.allocate_seconds).field("read_seconds", f.best_pass->stats.read_seconds);
  j.key("startup").begin_object();
  j.field("context", r.startup.context).field("open_checkpoint", r.startup.open_checkpoint);
  j.field("driver_open", r.startup.driver_open).field("ceiling", r.startup.ceiling).end_object();
  j.key("first_pass");
  breakdown_json(j, r.passes.front().stats);
  j.key("best_pass");
  breakdown_json(j, f.best_pass->stats);
  j.field("gbps_best", gbps(l.bytes, f.best)).field("gbps_median", gbps(l.bytes, f.median));
  j.field("read_gbps_best", gbps(l.stats.bytes_read, f.read_best));
  j.field("pinned_h2d_gbps", r.pinned_gbps).field("vs_pinned_h2d", ratio(gbps(l.bytes, f.best), r.pinned_gbps));
  if (r.write_seconds >= 0) j.field("write_gbps", gbps(l.bytes, r.write_seconds));
  else j.key("write_gbps").null();
  j.field("verify", r.verify).field("status", "ok").end_object();
  std::fputs(j.str().c_str(), stdout);
  if (j.str().empty() || j.str().back() != '\n') std::fputc('\n', stdout);
}

}  // namespace hipfile::tools::load
