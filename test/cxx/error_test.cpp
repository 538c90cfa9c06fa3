// SPDX-License-Identifier: MIT
// hipfile::Error: conversions to and from both C conventions, equality, message text, fmt.
#include "catch.hpp"

#include <hipfile++/error.hpp>
#include <hipfile++/fmt.hpp>

#include <cerrno>
#include <cstring>
#include <string>

using hipfile::Error;

static_assert(std::is_nothrow_copy_constructible_v<Error>);
static_assert(std::is_nothrow_move_constructible_v<Error>);
static_assert(std::is_nothrow_move_constructible_v<hipfile::Result<std::size_t>>);

TEST_CASE("An Error is never a success", "[error]") {
  CHECK(Error().op() == hipFileInternalError);
  CHECK(Error::from_op(hipFileSuccess).op() == hipFileInternalError);
  CHECK(Error::from_hip(hipErrorOutOfMemory).op() == hipFileHipDriverError);
  CHECK(Error().operation() == hipfile::Operation::unknown);
  CHECK(Error().path().empty());
  CHECK(!Error().offset());
}

TEST_CASE("Error round-trips through hipFileError_t", "[error]") {
  const hipFileError_t statuses[] = {
      {hipFileInvalidValue, hipSuccess},
      {hipFileHandleNotRegistered, hipSuccess},
      {hipFileMemoryNotRegistered, hipSuccess},
      {hipFileHipDriverError, hipErrorOutOfMemory},
      {hipFileHipDriverError, hipErrorInvalidDevice},
      {hipFileDriverNotInitialized, hipSuccess},
  };
  for (const auto& s : statuses) {
    CAPTURE(s.err, s.hip_drv_err);
    const Error e = Error::from_status(s);
    CHECK(e.op() == s.err);
    CHECK(e.hip() == s.hip_drv_err);
    CHECK_FALSE(e.is_system());
    const hipFileError_t back = e.to_status();
    CHECK(back.err == s.err);
    CHECK(back.hip_drv_err == s.hip_drv_err);
    CHECK(Error::from_status(back) == e);
  }
  // A success is not an error: converting one yields the internal error, never hipFileSuccess.
  CHECK(Error::from_status({hipFileSuccess, hipSuccess}).op() == hipFileInternalError);
}

TEST_CASE("Error round-trips through the ssize_t of hipFileRead/Write", "[error]") {
  SECTION("-1 carries errno") {
    errno = ENOENT;
    const Error e = Error::from_io_return(-1);
    CHECK(e.is_system());
    CHECK(e.sys_errno() == ENOENT);
    CHECK(e == Error::from_errno(ENOENT));
    errno = 0;
    CHECK(e.to_io_return() == -1);
    CHECK(errno == ENOENT);
  }
  SECTION("a negated op error") {
    for (auto op : {hipFileInvalidValue, hipFileHandleNotRegistered, hipFileHipMemoryTypeInvalid,
                    hipFileInternalError, hipFileIOMaxError}) {
      CAPTURE(op);
      const ssize_t r = -static_cast<ssize_t>(op);
      const Error e = Error::from_io_return(r);
      CHECK(e == Error::from_op(op));
      CHECK_FALSE(e.is_system());
      CHECK(e.to_io_return() == r);
    }
  }
  SECTION("-hipFileHipDriverError stands for an unknown HIP error") {
    const Error e = Error::from_io_return(-hipFileHipDriverError);
    CHECK(e.op() == hipFileHipDriverError);
    CHECK(e.hip() == hipErrorUnknown);
    CHECK(e.to_io_return() == -hipFileHipDriverError);
  }
  SECTION("upstream's raw -hipError_t becomes a HIP error") {
    const Error e = Error::from_io_return(-static_cast<ssize_t>(hipErrorOutOfMemory));
    CHECK(e == Error::from_hip(hipErrorOutOfMemory));
  }
  SECTION("a system error with an op keeps the errno convention") {
    const Error e = Error::from_errno(EIO, hipFileIOMaxError);
    errno = 0;
    CHECK(e.to_io_return() == -1);
    CHECK(errno == EIO);
    CHECK(e.to_status().err == hipFileIOMaxError);
  }
  SECTION("a plain system error is not an op error, and becomes InternalError only in hipFileError_t") {
    const Error e = Error::from_errno(ENOENT);
    CHECK(e.op() == hipFileSuccess);
    CHECK(e.is_system());
    CHECK(e.to_status().err == hipFileInternalError);
  }
  SECTION("end of file is not a system error, and reads as ENODATA in the C convention") {
    const Error e = Error::end_of_file();
    CHECK(e.is_eof());
    CHECK_FALSE(e.is_system());
    CHECK(e.op() == hipFileSuccess);
    CHECK(e.sys_errno() == ENODATA);
    errno = 0;
    CHECK(e.to_io_return() == -1);
    CHECK(errno == ENODATA);
    CHECK(e != Error::from_errno(ENODATA));
  }
}

TEST_CASE("check and check_io adapt C returns to Result", "[error]") {
  CHECK(hipfile::check({hipFileSuccess, hipSuccess}).has_value());
  auto bad = hipfile::check({hipFileInvalidValue, hipSuccess});
  REQUIRE_FALSE(bad.has_value());
  CHECK(bad.error() == Error::from_op(hipFileInvalidValue));

  auto n = hipfile::check_io(4096);
  REQUIRE(n.has_value());
  CHECK(*n == 4096u);
  CHECK(hipfile::check_io(0).value() == 0u);
  errno = EBADF;
  auto sys = hipfile::check_io(-1);
  REQUIRE_FALSE(sys.has_value());
  CHECK(sys.error().sys_errno() == EBADF);
  auto op = hipfile::check_io(-hipFileHandleNotRegistered);
  REQUIRE_FALSE(op.has_value());
  CHECK(op.error().op() == hipFileHandleNotRegistered);
}

TEST_CASE("Errors compare equal exactly when op, HIP error and errno agree", "[error]") {
  CHECK(Error::from_op(hipFileInvalidValue) == Error::from_op(hipFileInvalidValue));
  CHECK(Error::from_op(hipFileInvalidValue) != Error::from_op(hipFileMemoryNotRegistered));
  CHECK(Error::from_hip(hipErrorOutOfMemory) != Error::from_hip(hipErrorInvalidValue));
  CHECK(Error::from_hip(hipErrorOutOfMemory) != Error::from_op(hipFileHipDriverError));
  CHECK(Error::from_errno(ENOENT) != Error::from_errno(EACCES));
  CHECK(Error::from_errno(ENOENT) != Error::from_op(hipFileInternalError));
  CHECK(Error(hipFileHipDriverError, hipErrorNoDevice) == Error::from_hip(hipErrorNoDevice));
  // The context says where, not what: it does not take part in the comparison.
  const hipfile::Context where{hipfile::Operation::read, std::make_shared<const std::string>("x"), 0, 4};
  CHECK(Error::from_errno(EIO).in(where) == Error::from_errno(EIO));
}

TEST_CASE("Error::message names the op error, the HIP error and the errno", "[error]") {
  const std::string op_text = hipFileGetOpErrorString(hipFileInvalidValue);
  CHECK(Error::from_op(hipFileInvalidValue).message() == op_text);

  const std::string hip = Error::from_hip(hipErrorOutOfMemory).message();
  CHECK(hip.find(hipFileGetOpErrorString(hipFileHipDriverError)) == 0);
  CHECK(hip.find("hipErrorOutOfMemory") != std::string::npos);
  CHECK(Error::from_hip(static_cast<hipError_t>(1000)).message().find("hip error 1000") != std::string::npos);

  CHECK(Error::from_errno(ENOENT).message() == std::string(std::strerror(ENOENT)) + " (ENOENT)");
  CHECK(Error::from_errno(4000).message().find("(errno 4000)") != std::string::npos);
  CHECK(Error::end_of_file().message() == "end of file");

  const std::string both = Error::from_errno(EIO, hipFileIOMaxError).message();
  CHECK(both.find(hipFileGetOpErrorString(hipFileIOMaxError)) == 0);
  CHECK(both.find(std::strerror(EIO)) != std::string::npos);
}

TEST_CASE("fmt.hpp formats an Error as its message, with string format specs", "[error]") {
  const Error e = Error::from_hip(hipErrorInvalidDevice);
  CHECK(fmt::format("{}", e) == e.message());
  CHECK(fmt::format("<{}>", Error::from_errno(EACCES)) == "<" + Error::from_errno(EACCES).message() + ">");
  const std::string padded = fmt::format("{:>200}", e);
  CHECK(padded.size() == 200);
  CHECK(padded.substr(200 - e.message().size()) == e.message());
}

TEST_CASE("Error::from_bytes_result decodes the batch and async convention: -errno and -op", "[error]") {
  const Error ebadf = Error::from_bytes_result(-EBADF);
  CHECK(ebadf.is_system());
  CHECK(ebadf.sys_errno() == EBADF);
  CHECK(ebadf.hip() == hipSuccess);
  const Error eio = Error::from_bytes_result(-EIO);
  CHECK(eio.sys_errno() == EIO);
  CHECK(Error::from_bytes_result(-4095).sys_errno() == 4095);
  const Error op = Error::from_bytes_result(-static_cast<ssize_t>(hipFileHandleNotRegistered));
  CHECK(op.op() == hipFileHandleNotRegistered);
  CHECK(!op.is_system());
  const Error hip = Error::from_bytes_result(-static_cast<ssize_t>(hipFileHipDriverError));
  CHECK(hip.op() == hipFileHipDriverError);
  CHECK(hip.hip() == hipErrorUnknown);
  CHECK(Error::from_bytes_result(0).op() == hipFileInternalError);
  CHECK(Error::from_bytes_result(-4999).op() == hipFileInternalError);
  // The same -9 read by the hipFileRead decoder means a raw -hipError_t: the two differ.
  CHECK(Error::from_io_return(-9).hip() == hipErrorInvalidConfiguration);
}

TEST_CASE("Error::message says what failed: operation, length, offset, path", "[error]") {
  using hipfile::Context;
  using hipfile::Operation;
  const auto path = std::make_shared<const std::string>("data.bin");
  CHECK(Error::end_of_file().in(Context{Operation::read, path, 1048576, 4096}).message() ==
        "read of 4096 bytes at offset 1048576 from 'data.bin': end of file");
  CHECK(Error::from_errno(ENOENT).in(Context{Operation::open, std::make_shared<const std::string>("missing.bin"), {}, {}})
            .message() == "open 'missing.bin': No such file or directory (ENOENT)");
  CHECK(Error::from_errno(EBADF).in(Context{Operation::write, path, 0, 1}).message() ==
        "write of 1 byte at offset 0 to 'data.bin': Bad file descriptor (EBADF)");
  CHECK(Error::from_op(hipFileInvalidValue).in(Context{Operation::read, nullptr, -1, 16}).message() ==
        std::string("read of 16 bytes at offset -1: ") + hipFileGetOpErrorString(hipFileInvalidValue));
  CHECK(Error::from_hip(hipErrorOutOfMemory).in(Context{Operation::allocate, nullptr, {}, 1024}).message() ==
        std::string("allocate of 1024 bytes: ") + hipFileGetOpErrorString(hipFileHipDriverError) +
            ": hipErrorOutOfMemory");
  CHECK(Error::from_op(hipFileDriverNotInitialized).in(Operation::driver).message() ==
        std::string("driver: ") + hipFileGetOpErrorString(hipFileDriverNotInitialized));
  // The innermost operation is kept; missing fields are filled from the outer context.
  const Error inner = Error::from_errno(EIO).in(Context{Operation::read, nullptr, 8, 8});
  const Error outer = inner.in(Context{Operation::write, path, 0, 64});
  CHECK(outer.operation() == Operation::read);
  CHECK(*outer.offset() == 8);
  CHECK(*outer.length() == 8u);
  CHECK(outer.path() == "data.bin");
}

TEST_CASE("Error::explained adds what exactly was wrong to the message, not to equality", "[error]") {
  const Error plain = Error::from_op(hipFileInvalidValue).in(hipfile::Context(hipfile::Operation::read, nullptr, 0, 16));
  const Error e = plain.explained("size 16 at buffer offset 8 runs past the buffer's 16 bytes");
  CHECK(e == plain);  // the same code: callers that compare codes see no difference
  CHECK(e.explanation() == "size 16 at buffer offset 8 runs past the buffer's 16 bytes");
  CHECK(plain.explanation().empty());
  CHECK(e.message() == "read of 16 bytes at offset 0: invalid argument: size 16 at buffer offset 8 runs past the buffer's 16 bytes");
  CHECK(plain.explained("").message() == plain.message());
  // The explanation survives a later context, as the path does.
  CHECK(Error::from_errno(EINVAL).explained("the file offset -1 is negative").in(hipfile::Operation::write).message() ==
        "write: Invalid argument (EINVAL): the file offset -1 is negative");
}
