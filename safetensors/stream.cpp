// SPDX-License-Identifier: MIT
// TensorStream: reading threads take the selected tensors in file order, each reserving its
// bytes of the budget in that same order (so the tensor next() waits for always gets room),
// allocating, reading, and handing the result to its slot; next() takes the slots in order.
#include <hipfile-safetensors/stream.hpp>

#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <mutex>

#include <hipfile++/file.hpp>

#include "devices.hpp"
#include "fail.hpp"
#include "load_clock.hpp"
#include "select.hpp"
#include "shard_files.hpp"

namespace hipfile::safetensors {

/// The most reading threads a stream runs.
static constexpr unsigned kMaxStreamThreads = 16;

struct TensorStream::State {
  struct Slot {
    std::optional<StreamedTensor> tensor;
    std::optional<Error> error;
    bool ready = false;
  };

  const Checkpoint* checkpoint = nullptr;
  std::vector<const TensorInfo*> order;  // the selection, in file order
  int device = 0;
  std::uint64_t budget = 0;
  std::vector<File> files;
  std::vector<Slot> slots;
  detail::LoadClock clock;

  std::mutex mutex;
  std::condition_variable changed;
  std::size_t next_reserve = 0;  // the tensor whose turn it is to reserve budget
  std::size_t next_take = 0;
  std::uint64_t held = 0, peak = 0, bytes_read = 0, reads = 0;
  std::optional<Error> failure;  // returned by next() at and after the tensor it concerns
  bool stopping = false;

  std::atomic<std::size_t> next_read{0};
  std::vector<pthread_t> threads;

  /// Each reading thread: take the next tensor, wait for its turn and room, read it.
  void read_loop() {
    for (std::size_t i; (i = next_read.fetch_add(1)) < order.size();) {
      if (!reserve(i)) return;
      auto result = read_one(*order[i]);
      std::lock_guard lock(mutex);
      Slot& s = slots[i];
      if (result) {
        s.tensor = std::move(*result);
        bytes_read += order[i]->bytes();
        reads += order[i]->bytes() > 0;
      } else {
        s.error = result.error();
        held -= order[i]->bytes();
        stopping = true;  // later tensors will never be taken
      }
      s.ready = true;
      changed.notify_all();
    }
  }

  /// Waits until tensor @p i is next to reserve and its bytes fit the budget; false when stopping.
  bool reserve(std::size_t i) {
    std::unique_lock lock(mutex);
    const std::uint64_t n = order[i]->bytes();
    changed.wait(lock, [&] { return stopping || (next_reserve == i && held + n <= budget); });
    if (stopping) return false;
    held += n;
    peak = std::max(peak, held);
    ++next_reserve;
    changed.notify_all();
    return true;
  }

  Result<StreamedTensor> read_one(const TensorInfo& t) {
    const std::string& path = checkpoint->shards()[t.shard].path;
    StreamedTensor out{LoadedTensor{t.name, t.dtype, t.shape, device, nullptr, static_cast<std::size_t>(t.bytes()), 0},
                       DeviceBuffer{}};
    if (t.bytes() == 0) return out;
    auto memory = DeviceBuffer::allocate(static_cast<std::size_t>(t.bytes()), device);
    if (!memory) return detail::fail(Errc::device_error, path, t.name, "on device " + std::to_string(device), memory.error());
    if (auto r = files[t.shard].read_exact(memory->bytes(), static_cast<std::int64_t>(t.file_offset)); !r)
      return detail::fail(detail::read_failure(path, t.name, t.bytes(), t.file_offset, r.error(),
                                               " into device " + std::to_string(device)));
    out.tensor.data = memory->data();
    out.memory = std::move(*memory);
    return out;
  }

  /// Stops the readers and waits for them (reads in flight finish first).
  void stop() {
    {
      std::lock_guard lock(mutex);
      stopping = true;
      changed.notify_all();
    }
    for (pthread_t t : threads) ::pthread_join(t, nullptr);
    threads.clear();
  }
};

namespace {

using detail::fail;

/// The device a stream reads into: the option's, or the calling thread's current one (-1 only:
/// another negative one is refused, not taken as it); checked.
Result<int> stream_device(const StreamOptions& o) {
  auto runtime = detail::runtime_devices();
  if (!runtime) return fail(runtime.error());
  return detail::checked_device(*runtime, o.device == -1 ? runtime->current : o.device);
}

/// The budget in force: the option's (which every selected tensor must fit) or the default.
Result<std::uint64_t> stream_budget(const Checkpoint& c, const std::vector<const TensorInfo*>& order,
                                    const StreamOptions& o) {
  const TensorInfo* largest = nullptr;
  for (const TensorInfo* t : order)
    if (largest == nullptr || t->bytes() > largest->bytes()) largest = t;
  const std::uint64_t most = largest != nullptr ? largest->bytes() : 0;
  if (o.budget == 0) return std::max(kDefaultStreamBudget, 2 * most);
  if (most > o.budget)
    return fail(Errc::invalid_argument, c.shards()[largest->shard].path, largest->name,
                "the tensor is " + std::to_string(most) + " bytes, more than the stream's budget of " +
                    std::to_string(o.budget) + " bytes");
  return o.budget;
}

/// Starts @p wanted reading threads on @p st; fewer where the system refuses more (slower, not
/// wrong), an error only where it refuses the first.
Result<void> start_readers(TensorStream::State& st, std::size_t wanted) {
  auto body = [](void* p) -> void* {
    static_cast<TensorStream::State*>(p)->read_loop();
    return nullptr;
  };
  for (std::size_t k = 0; k < wanted; ++k) {
    pthread_t t;
    if (int e = ::pthread_create(&t, nullptr, body, &st); e != 0) {
      if (!st.threads.empty()) break;
      return fail(Errc::io_error, detail::checkpoint_name(*st.checkpoint), "", "starting a reading thread",
                  hipfile::Error::from_errno(e));
    }
    st.threads.push_back(t);
  }
  return {};
}

}  // namespace

TensorStream::TensorStream() = default;
TensorStream::TensorStream(TensorStream&&) noexcept = default;
TensorStream& TensorStream::operator=(TensorStream&& other) noexcept {
  if (this != &other) {
    if (state_) state_->stop();
    state_ = std::move(other.state_);
  }
  return *this;
}
TensorStream::~TensorStream() {
  if (state_) state_->stop();
}

Result<TensorStream> TensorStream::open(const Checkpoint& checkpoint, const StreamOptions& options) {
  if (options.read_ahead_threads < 1 || options.read_ahead_threads > kMaxStreamThreads)
    return fail(Errc::invalid_argument, "", "", "read_ahead_threads " + std::to_string(options.read_ahead_threads) +
                                                    " is not between 1 and " + std::to_string(kMaxStreamThreads));
  auto selected = detail::select_tensors(checkpoint, options.names, options.filter);
  if (!selected) return fail(selected.error());
  auto device = stream_device(options);
  if (!device) return fail(device.error());

  TensorStream s;
  s.state_ = std::make_unique<State>();
  State& st = *s.state_;
  st.checkpoint = &checkpoint;
  st.device = *device;
  std::vector<char> used(checkpoint.shards().size(), 0);
  for (std::size_t i : *selected) {
    st.order.push_back(&checkpoint.tensors()[i]);
    used[checkpoint.tensors()[i].shard] |= checkpoint.tensors()[i].bytes() > 0;
  }
  auto budget = stream_budget(checkpoint, st.order, options);
  if (!budget) return fail(budget.error());
  st.budget = *budget;
  if (auto r = detail::check_shard_sizes(checkpoint, used); !r) return fail(r.error());
  auto files = detail::register_shards(checkpoint, used, options.direct);
  if (!files) return fail(files.error());
  st.files = std::move(*files);
  st.slots.resize(st.order.size());

  if (auto r = start_readers(st, std::min<std::size_t>(options.read_ahead_threads, std::max<std::size_t>(1, st.order.size())));
      !r)
    return fail(r.error());
  return s;
}

Result<std::optional<StreamedTensor>> TensorStream::next() {
  if (!state_) return std::optional<StreamedTensor>{};
  State& st = *state_;
  std::unique_lock lock(st.mutex);
  if (st.failure) return fail(*st.failure);
  if (st.next_take == st.order.size()) return std::optional<StreamedTensor>{};
  State::Slot& slot = st.slots[st.next_take];
  st.changed.wait(lock, [&] { return slot.ready; });
  if (slot.error) {
    st.failure = std::move(slot.error);
    return fail(*st.failure);
  }
  std::optional<StreamedTensor> out = std::move(slot.tensor);
  slot.tensor.reset();
  st.held -= st.order[st.next_take]->bytes();
  ++st.next_take;
  st.changed.notify_all();
  return out;
}

std::size_t TensorStream::size() const noexcept { return state_ ? state_->order.size() : 0; }
std::uint64_t TensorStream::budget() const noexcept { return state_ ? state_->budget : 0; }

std::uint64_t TensorStream::peak_held() const noexcept {
  if (!state_) return 0;
  std::lock_guard lock(state_->mutex);
  return state_->peak;
}

LoadStats TensorStream::stats() const noexcept {
  LoadStats s;
  if (!state_) return s;
  std::lock_guard lock(state_->mutex);
  s.reads = state_->reads;
  s.bytes_read = state_->bytes_read;
  s.total_seconds = s.read_seconds = state_->clock.elapsed();
  s.library_phases = state_->clock.library_phases();
  s.path_bytes = state_->clock.library_path_bytes();
  return s;
}

Result<LoadStats> stream(const Checkpoint& checkpoint, const StreamOptions& options,
                         const std::function<bool(StreamedTensor&&)>& take) {
  auto s = TensorStream::open(checkpoint, options);
  if (!s) return fail(s.error());
  for (;;) {
    auto t = s->next();
    if (!t) return fail(t.error());
    if (!*t || !take(std::move(**t))) break;
  }
  return s->stats();
}

}  // namespace hipfile::safetensors
