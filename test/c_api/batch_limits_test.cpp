// SPDX-License-Identifier: MIT
// The batch size hipFileDriverGetProperties reports (max_batch_io_count, set through
// hipFileParamPropertiesIOBatchsize) is one hipFileBatchIOSetUp accepts: both stop at 128,
// upstream's batch capacity.
#include "helpers.hpp"

using namespace hipfile::test;

namespace {
constexpr unsigned kMaxBatch = 128;

unsigned reported_batch_size() {
  hipFileDriverProps_t props{};
  REQUIRE(hipFileDriverGetProperties(&props).err == hipFileSuccess);
  return props.max_batch_io_count;
}
}  // namespace

TEST_CASE("The batch size setter refuses what hipFileBatchIOSetUp would refuse", "[batch][params]") {
  ClosedDriver guard;
  size_t value = 0;
  REQUIRE(hipFileGetParameterSizeT(hipFileParamPropertiesIOBatchsize, &value).err == hipFileSuccess);
  CHECK(value == kMaxBatch);  // the default
  CHECK(hipFileSetParameterSizeT(hipFileParamPropertiesIOBatchsize, kMaxBatch + 1).err == hipFileInvalidValue);
  CHECK(hipFileSetParameterSizeT(hipFileParamPropertiesIOBatchsize, 65536).err == hipFileInvalidValue);
  CHECK(hipFileSetParameterSizeT(hipFileParamPropertiesIOBatchsize, 0).err == hipFileInvalidValue);
  REQUIRE(hipFileGetParameterSizeT(hipFileParamPropertiesIOBatchsize, &value).err == hipFileSuccess);
  CHECK(value == kMaxBatch);  // a refused value changes nothing
  REQUIRE(hipFileSetParameterSizeT(hipFileParamPropertiesIOBatchsize, 16).err == hipFileSuccess);
  REQUIRE(hipFileDriverOpen().err == hipFileSuccess);
  CHECK(reported_batch_size() == 16);
  REQUIRE(hipFileDriverClose().err == hipFileSuccess);  // parameters return to their defaults
}

TEST_CASE("The largest batch size reported is one hipFileBatchIOSetUp accepts", "[batch][params]") {
  ClosedDriver guard;
  REQUIRE(hipFileSetParameterSizeT(hipFileParamPropertiesIOBatchsize, kMaxBatch).err == hipFileSuccess);
  REQUIRE(hipFileDriverOpen().err == hipFileSuccess);
  const unsigned reported = reported_batch_size();
  CHECK(reported == kMaxBatch);
  hipFileBatchHandle_t batch = nullptr;
  REQUIRE(hipFileBatchIOSetUp(&batch, reported).err == hipFileSuccess);
  hipFileBatchIODestroy(batch);
  hipFileBatchHandle_t over = nullptr;
  CHECK(hipFileBatchIOSetUp(&over, reported + 1).err == hipFileInvalidValue);
  CHECK(over == nullptr);
  REQUIRE(hipFileDriverClose().err == hipFileSuccess);
}
