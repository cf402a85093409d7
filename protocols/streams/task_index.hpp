// Dense numbers for a set of tasks: a task's number is its position in the
// set. Found by the sub-topology's handle and the partition, without
// comparing ids: the classic Streams leader asks per client and task, and a
// tree walk with string compares per lookup was a tenth of a 1,000-client
// rebalance (issue 16).
#pragma once

#include "protocols/streams/tasks.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

namespace rsim::protocols::streams {

class TaskIndex {
 public:
  static constexpr std::uint32_t npos = std::numeric_limits<std::uint32_t>::max();

  TaskIndex() = default;
  explicit TaskIndex(const TaskSet& tasks) {
    partitions_.reserve(tasks.size());
    for (const auto& t : tasks) {
      if (runs_.empty() || runs_.back().subtopology != t.subtopology.id()) {
        const auto at = static_cast<std::uint32_t>(partitions_.size());
        runs_.push_back({t.subtopology.id(), at, at, true});
      }
      Run& run = runs_.back();
      run.dense = run.dense && t.partition == static_cast<int>(run.end - run.begin);
      partitions_.push_back(t.partition);
      ++run.end;
    }
    std::sort(runs_.begin(), runs_.end(), [](const Run& a, const Run& b) { return a.subtopology < b.subtopology; });
  }

  std::uint32_t size() const { return static_cast<std::uint32_t>(partitions_.size()); }

  // The task's number, or npos.
  std::uint32_t find(const TaskId& t) const {
    const std::uint32_t handle = t.subtopology.id();
    const auto run = std::lower_bound(runs_.begin(), runs_.end(), handle,
                                      [](const Run& r, std::uint32_t h) { return r.subtopology < h; });
    if (run == runs_.end() || run->subtopology != handle || t.partition < 0) return npos;
    if (run->dense) {
      const auto p = static_cast<std::uint32_t>(t.partition);
      return p < run->end - run->begin ? run->begin + p : npos;
    }
    const auto first = partitions_.begin() + run->begin, last = partitions_.begin() + run->end;
    const auto at = std::lower_bound(first, last, t.partition);
    return at != last && *at == t.partition ? static_cast<std::uint32_t>(at - partitions_.begin()) : npos;
  }

 private:
  // A sub-topology's tasks: numbers [begin, end), partitions ascending;
  // dense when they are 0..n-1, so a partition is its offset.
  struct Run {
    std::uint32_t subtopology;  // SubtopologyId::id()
    std::uint32_t begin, end;
    bool dense;
  };
  std::vector<Run> runs_;  // by handle
  std::vector<int> partitions_;
};

}  // namespace rsim::protocols::streams
