// SPDX-License-Identifier: MIT
#include "report.hpp"

#include "args.hpp"
#include "json_writer.hpp"

#include <cmath>
#include <fmt/format.h>

namespace hipfile::tools::io {
namespace {

std::string num(double v, const char* spec = "{:.2f}") {
  return std::isfinite(v) ? fmt::format(fmt::runtime(spec), v) : std::string("-");
}

void row(const Measurement& m) {
  if (!m.measured()) return;
  fmt::print("  {:<40} {:>10} {:>12} {:>11} {:>9} {:>7}\n", m.label, num(m.best_gbps()), num(m.median_gbps()),
             num(m.best_iops() / 1000, "{:.1f}"), num(m.median_cpu_per_gb(), "{:.3f}"), m.seconds.size());
}

void ratio_row(const char* name, const Measurement& subject, const Measurement& base, const char* want) {
  if (!subject.measured() || !base.measured()) return;
  fmt::print("  hipfile vs {:<29} {:>9}x {:>11}x   {}\n", name, num(ratio(subject.best_gbps(), base.best_gbps())),
             num(ratio(subject.median_gbps(), base.median_gbps())), want);
}

void json_measurement(JsonWriter& j, const Measurement& m, const std::vector<int>& devices, bool concurrent) {
  j.key(m.key).begin_object();
  j.field("label", m.label);
  // The copies of several GPUs run at once; the figure is their aggregate, per_device each one's.
  if (concurrent) j.field("concurrent_devices", static_cast<std::uint64_t>(devices.size()));
  j.field("bytes_per_pass", m.bytes);
  j.key("seconds").begin_array();
  for (double s : m.seconds) j.value(s);
  j.end_array();
  j.field("gbps_best", m.best_gbps());
  j.field("gbps_median", m.median_gbps());
  j.field("ops_per_pass", m.ops);
  j.field("iops_best", m.best_iops());
  j.field("iops_median", m.median_iops());
  j.key("cpu_seconds").begin_array();
  for (double c : m.cpu_seconds) j.value(c);
  j.end_array();
  j.field("cpu_s_per_gb", m.median_cpu_per_gb());
  if (!m.slot_bytes.empty()) {
    j.key("per_device").begin_array();
    for (std::size_t s = 0; s < m.slot_bytes.size(); ++s) {
      j.begin_object();
      j.field("device", devices.at(s));
      j.field("bytes_per_pass", m.slot_bytes[s]);
      j.field("gbps_best", m.slot_best_gbps(s));
      j.field("gbps_median", m.slot_median_gbps(s));
      j.end_object();
    }
    j.end_array();
  }
  j.end_object();
}

}  // namespace

const Measurement& Report::copy_ceiling() const { return options->op == Op::Read ? h2d : d2h; }

void print_table(const Report& r) {
  const Options& o = *r.options;
  fmt::print("hipfile-io: platform {}, HIP runtime {}\n", r.platform.platform, r.platform.runtime);
  for (int d : r.devices)
    for (const GpuInfo& g : r.platform.gpus)
      if (g.index == d) fmt::print("  GPU{} {} ({}, {})\n", g.index, g.name, format_size(g.memory), g.pci_bus_id);
  fmt::print("{} {}, {} per pass in {} requests, {} thread(s) x {} GPU(s), {} memory {}, {}, page cache {}, {} API",
             op_name(o.op), access_name(o.access), format_size(o.total), format_size(o.io_size), o.threads,
             r.devices.size(), mem_kind_name(o.mem), o.registered ? "registered" : "unregistered",
             o.direct ? "O_DIRECT" : "buffered", cache_name(o.cache), api_name(o.api));
  if (o.api == Api::Async) fmt::print(" ({} streams)", o.streams);
  if (o.api == Api::Batch) fmt::print(" ({} entries)", o.batch);
  fmt::print(", engine threads {}\n", r.engine_threads);
  if (o.file_per_device)
    fmt::print("files {} to {} ({} each, one per GPU)", r.files.front(), r.files.back(), format_size(o.file_size));
  else
    fmt::print("file {} ({})", o.file, format_size(o.file_size));
  if (r.page_cache_resident >= 0) fmt::print(", {:.0f}% in page cache before the run", 100 * r.page_cache_resident);
  fmt::print("\n\n  {:<40} {:>10} {:>12} {:>11} {:>9} {:>7}\n", "measurement (GB/s = 1e9 B/s)", "best GB/s",
             "median GB/s", "best kIOPS", "CPU s/GB", "passes");
  row(r.hipfile);
  row(r.h2d);
  row(r.d2h);
  row(r.raw);
  row(r.naive);
  row(r.serial);
  row(r.hand);
  row(r.stream);
  row(r.parts);
  fmt::print("\n  {:<40} {:>10} {:>12}\n", "ratio", "best", "median");
  ratio_row(o.op == Op::Read ? "pinned H2D copy" : "pinned D2H copy", r.hipfile, r.copy_ceiling(), "(want >= 0.9)");
  ratio_row(o.op == Op::Read ? "raw parallel pread" : "raw parallel pwrite", r.hipfile, r.raw,
            o.cache == Cache::Cold || o.op == Op::Write ? "(want >= 0.9-0.95)" : "");
  ratio_row("naive pread + hipMemcpy", r.hipfile, r.naive, "(want >= 10 hot)");
  ratio_row("the same sync calls, serial", r.hipfile, r.serial, "");
  ratio_row("pread + hipMemcpy by hand", r.hipfile, r.hand, "(want >= 0.9)");
  ratio_row("one sequential reader", r.hipfile, r.stream, o.cache == Cache::Cold ? "(want >= 0.97 of the best reader)" : "");
  ratio_row("its parts alone, summed", r.hipfile, r.parts, "(want >= 0.91: time <= 1.1x the parts')");
  if (r.devices.size() > 1) {
    const Measurement& ceiling = r.copy_ceiling();
    for (const Measurement* m : {&r.hipfile, &ceiling}) {
      if (!m->measured()) continue;
      fmt::print("{}  per GPU ({}{}):", m == &r.hipfile ? "\n" : "", m->key, m == &r.hipfile ? "" : ", all at once");
      for (std::size_t s = 0; s < r.devices.size(); ++s)
        fmt::print("  GPU{} {} GB/s best, {} median", r.devices[s], num(m->slot_best_gbps(s)),
                   num(m->slot_median_gbps(s)));
      fmt::print("\n");
    }
  }
  fmt::print("\nverify: {}\n", r.verify);
}

std::string to_json(const Report& r) {
  const Options& o = *r.options;
  JsonWriter j;
  j.begin_object();
  j.field("tool", "hipfile-io");
  j.field("command", r.command);
  j.key("machine").begin_object();
  j.field("platform", r.platform.platform);
  j.field("hip_runtime", r.platform.runtime);
  j.field("hostname", r.platform.hostname);
  j.field("kernel", r.platform.kernel);
  j.field("cpus", r.platform.cpus);
  j.key("gpus").begin_array();
  for (const GpuInfo& g : r.platform.gpus) {
    j.begin_object();
    j.field("index", g.index).field("name", g.name).field("memory", g.memory).field("pci_bus_id", g.pci_bus_id);
    j.end_object();
  }
  j.end_array();
  j.end_object();
  j.key("config").begin_object();
  j.field("op", op_name(o.op));
  j.field("access", access_name(o.access));
  j.field("api", api_name(o.api));
  j.field("io_size", o.io_size);
  j.field("total", o.total);
  j.field("file", o.file);
  j.field("file_per_device", o.file_per_device);
  j.key("files").begin_array();
  for (const std::string& f : r.files) j.value(f);
  j.end_array();
  j.field("file_size", o.file_size);
  j.field("threads", o.threads);
  j.field("engine_threads", r.engine_threads);
  j.field("mem", mem_kind_name(o.mem));
  j.field("registered", o.registered);
  j.field("direct", o.direct);
  j.field("cache", cache_name(o.cache));
  if (o.cache == Cache::Partial) j.field("resident", o.resident);
  j.field("streams", o.streams);
  j.field("batch", o.batch);
  j.field("reps", o.reps);
  j.field("fsync", o.fsync);
  j.key("devices").begin_array();
  for (int d : r.devices) j.value(d);
  j.end_array();
  j.end_object();
  j.field("page_cache_resident", r.page_cache_resident);
  j.key("results").begin_object();
  for (const Measurement* m : {&r.hipfile, &r.h2d, &r.d2h, &r.raw, &r.naive, &r.serial, &r.hand, &r.stream, &r.parts})
    if (m->measured()) json_measurement(j, *m, r.devices, m == &r.h2d || m == &r.d2h);
  j.end_object();
  j.key("ratios").begin_object();
  auto both = [&](const char* key, const Measurement& base) {
    if (!base.measured()) return;
    j.key(key).begin_object();
    j.field("best", ratio(r.hipfile.best_gbps(), base.best_gbps()));
    j.field("median", ratio(r.hipfile.median_gbps(), base.median_gbps()));
    j.end_object();
  };
  both("vs_pinned_copy", r.copy_ceiling());
  both("vs_raw", r.raw);
  both("vs_naive", r.naive);
  both("vs_sync_serial", r.serial);
  both("vs_by_hand", r.hand);
  both("vs_stream", r.stream);
  both("vs_parts", r.parts);
  j.end_object();
  j.field("verify", r.verify);
  j.field("status", "ok");
  j.end_object();
  return j.str();
}

}  // namespace hipfile::tools::io
