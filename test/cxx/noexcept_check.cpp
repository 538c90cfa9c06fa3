// SPDX-License-Identifier: MIT
// Build-only check: every hipfile++ header compiles with -fno-exceptions and strict warnings,
// and the templates instantiate. Never run.
#include <hipfile++/hipfile.hpp>
#include <hipfile++/error.hpp>
#include <hipfile++/driver.hpp>
#include <hipfile++/file.hpp>
#include <hipfile++/device_buffer.hpp>
#include <hipfile++/registration.hpp>
#include <hipfile++/io.hpp>
#include <hipfile++/batch.hpp>
#include <hipfile++/pending.hpp>
#include <hipfile++/span.hpp>
#include <hipfile++/fmt.hpp>
#include <hipfile++/detail/hip_names.hpp>
#include <hipfile++/detail/posix.hpp>

#include <cstdint>
#include <string>

#if defined(__cpp_exceptions) || defined(__EXCEPTIONS)
#error "this file must be compiled with -fno-exceptions"
#endif

std::string hipfile_noexcept_check(const char* path) {
  auto driver = hipfile::Driver::open();
  if (!driver) return fmt::format("{}", driver.error());
  auto file = hipfile::File::open(path, O_RDWR);
  if (!file) return file.error().message();
  auto rb = hipfile::make_registered_buffer(4096);
  if (!rb) return rb.error().message();
  auto n = file->read(rb->registration, rb->bytes(), 0);
  auto m = file->write(rb->bytes(), 0);
  auto e = file->read_exact(rb->bytes(), 0);
  auto w = file->write_all(rb->registration, rb->bytes(), 0);
  auto typed = rb->buffer.as<std::uint32_t>();
  auto reg = hipfile::Registration::create(typed);
  auto copy = hipfile::read_to_device(*file, 0, 16);
  auto whole = hipfile::read_to_device(std::string(path));
  auto out = hipfile::write_from_device(path, rb->bytes());
  auto floats = rb->buffer.as<float>();
  auto tn = file->read(floats, 0);
  auto tw = file->write_all(rb->registration, floats, 0);
  auto value = file->read_value<std::uint64_t>(0);
  auto pending = file->read_async(floats, 0);
  auto pw = file->write_async(rb->registration, floats, 4096);
  hipfile::Batch batch;
  batch.add_read(*file, floats, 0);
  batch.add_write(*file, rb->registration, typed, 0);
  auto results = batch.wait();
  const hipfile::ReadRequest req[] = {{floats, 0}};
  auto all = hipfile::read_all(*file, req);
  auto synced = file->sync();
  if (!tn || !tw || !value || !pending.get() || !pw.get() || results.empty() || all.empty() || !synced) return "";
  return fmt::format("{} {} {} {} {} {} {} {} {}", n.has_value(), m.has_value(), e.has_value(), w.has_value(),
                     typed.size(), reg.has_value(), copy.has_value(), whole.has_value(), out.has_value());
}
