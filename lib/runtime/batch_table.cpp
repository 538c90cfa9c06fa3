// SPDX-License-Identifier: MIT
#include "runtime/batch_table.hpp"

#include <mutex>
#include <unordered_map>

#include "runtime/batch.hpp"

namespace hipfile::engine {

namespace {

struct Registry {
  std::mutex mu;
  std::unordered_map<BatchId, std::shared_ptr<Batch>> batches;
  BatchId next = 0x10001;  // odd, stepping by two (batch_table.hpp)
};

Registry& registry() {
  static Registry* r = new Registry;
  return *r;
}

}  // namespace

Status batch_setup(BatchId& out, unsigned max_nr) {
  if (max_nr == 0 || max_nr > Batch::kMaxEntries) return Status::of(Error::InvalidValue);
  auto batch = std::make_shared<Batch>(max_nr);
  Registry& r = registry();
  std::lock_guard lock(r.mu);
  const BatchId id = r.next;
  r.next += 2;
  r.batches.emplace(id, std::move(batch));
  out = id;
  return Status::success();
}

std::shared_ptr<Batch> batch_find(BatchId id) {
  Registry& r = registry();
  std::lock_guard lock(r.mu);
  auto it = r.batches.find(id);
  return it == r.batches.end() ? nullptr : it->second;
}

void batch_destroy(BatchId id) {
  std::shared_ptr<Batch> batch;
  {
    Registry& r = registry();
    std::lock_guard lock(r.mu);
    auto it = r.batches.find(id);
    if (it == r.batches.end()) return;
    batch = std::move(it->second);
    r.batches.erase(it);
  }
  batch->cancel();  // queued tasks still hold the object; they find their entries canceled
}

void batch_destroy_all() {
  std::unordered_map<BatchId, std::shared_ptr<Batch>> all;
  {
    Registry& r = registry();
    std::lock_guard lock(r.mu);
    all.swap(r.batches);
  }
  for (auto& [id, batch] : all) batch->cancel();
}

}  // namespace hipfile::engine
