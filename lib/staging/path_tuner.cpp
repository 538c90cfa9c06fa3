// SPDX-License-Identifier: MIT
// PathTuner: explore each candidate read path once, then take the fastest, measuring the others
// again at growing intervals.
#include "staging/path_tuner.hpp"

#include <algorithm>

namespace hipfile::engine {

const char* path_name(ReadPath path) noexcept {
  switch (path) {
    case ReadPath::mapped_shared: return "mapped, stagers beside";
    case ReadPath::mapped_alone: return "mapped alone";
    case ReadPath::staged: return "staged";
  }
  return "?";
}

void PathTuner::set_candidates(const ReadPath* paths, std::size_t count) noexcept {
  count_ = 0;
  for (std::size_t i = 0; i < count && count_ < candidates_.size(); ++i)
    if (index_of(paths[i]) == count_) candidates_[count_++].path = paths[i];
}

std::size_t PathTuner::index_of(ReadPath path) const noexcept {
  std::size_t i = 0;
  while (i < count_ && candidates_[i].path != path) ++i;
  return i;
}

PathTuner::Candidate* PathTuner::fastest() noexcept {
  Candidate* best = nullptr;
  for (std::size_t i = 0; i < count_; ++i)
    if (candidates_[i].measured && (!best || candidates_[i].rate > best->rate)) best = &candidates_[i];
  return best;
}

ReadPath PathTuner::choose(bool* trial) noexcept {
  bool tried = false;
  if (trial == nullptr) trial = &tried;
  *trial = false;
  if (count_ == 0) return ReadPath::staged;
  std::lock_guard lock(mu_);
  ++choices_;
  Candidate* best = fastest();
  for (std::size_t i = 0; i < count_; ++i)
    if (!candidates_[i].measured) {
      *trial = best != nullptr || i != 0;
      return candidates_[i].path;
    }
  for (std::size_t i = 0; i < count_; ++i) {
    Candidate& c = candidates_[i];
    if (&c != best && choices_ - c.last_chosen >= c.gap) {
      c.last_chosen = choices_;  // once per gap, also when callers choose at the same time
      *trial = true;
      return c.path;
    }
  }
  best->last_chosen = choices_;
  return best->path;
}

bool PathTuner::record(ReadPath path, std::size_t bytes, std::int64_t ns) noexcept {
  if (bytes == 0 || ns <= 0) return false;
  std::lock_guard lock(mu_);
  const std::size_t i = index_of(path);
  if (i == count_) return false;
  Candidate* c = &candidates_[i];
  const double sample = static_cast<double>(bytes) / static_cast<double>(ns);
  Candidate* before = fastest();
  const bool again = c->measured;
  c->rate = again ? (c->rate + sample) / 2 : sample;
  c->measured = true;
  c->last_chosen = choices_;
  Candidate* after = fastest();
  if (after != c) {
    // Measured again and still slower: ask it less often.
    if (again && before != c) c->gap = std::min(kMaxProbeGap, c->gap * 2);
    if (before == c) c->gap = kFirstProbeGap;  // it just lost its place: soon measured again
  } else if (before && before != c) {
    before->gap = kFirstProbeGap;  // the one it overtook is measured again soon
    before->last_chosen = choices_;
  }
  return before && after != before;
}

double PathTuner::rate(ReadPath path) const noexcept {
  std::lock_guard lock(mu_);
  const std::size_t i = index_of(path);
  return i < count_ && candidates_[i].measured ? candidates_[i].rate : 0;
}

}  // namespace hipfile::engine
