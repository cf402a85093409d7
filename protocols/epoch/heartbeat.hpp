// What a member of an epoch group (KIP-848 consumer, KIP-1071 Streams) gets
// back from its group heartbeat, whatever the protocol's request carries:
// an error, its id and epoch, the heartbeat interval and what it may own now.
#pragma once

#include "sim/time.hpp"

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace rsim::protocols::epoch {

// The heartbeat errors both protocols share (Kafka's Errors names).
enum class Error { None, FencedMemberEpoch, UnknownMemberId, UnreleasedInstanceId, GroupIdNotFound };
const char* error_name(Error e);

// What an answer says a member may own: a sorted list, immutable and
// shared. The coordinator builds a member's list once per change of its
// assignment, and every answer until the next change carries that same
// list; the member keeps it as it came. At a new epoch with nothing moved
// (most heartbeats of a large group in a rolling bounce) the answer then
// neither copies the list nor compares it unit by unit on either side: a
// 10,000-member group's heartbeats spent a tenth of their time there
// (issue 16). Equal lists compare equal whether shared or not.
template <class Unit>
class SharedList {
 public:
  SharedList() = default;
  SharedList(std::vector<Unit> units)  // NOLINT: implicit, a list is its units
      : units_(units.empty() ? nullptr : std::make_shared<const std::vector<Unit>>(std::move(units))) {}
  SharedList(std::initializer_list<Unit> units) : SharedList(std::vector<Unit>(units)) {}

  const std::vector<Unit>& get() const { return units_ != nullptr ? *units_ : kNone; }
  operator const std::vector<Unit>&() const { return get(); }  // NOLINT: read as the list it is
  auto begin() const { return get().begin(); }
  auto end() const { return get().end(); }
  std::size_t size() const { return get().size(); }
  bool empty() const { return units_ == nullptr; }
  const Unit& operator[](std::size_t i) const { return get()[i]; }
  // The same list, not only an equal one: no unit is read.
  bool is(const SharedList& other) const { return units_ == other.units_; }
  // The list behind its pointer (null: nothing), for what takes one.
  const std::shared_ptr<const std::vector<Unit>>& shared() const { return units_; }

  friend bool operator==(const SharedList& a, const SharedList& b) { return a.is(b) || a.get() == b.get(); }
  friend bool operator==(const SharedList& a, const std::vector<Unit>& b) { return a.get() == b; }

 private:
  inline static const std::vector<Unit> kNone{};
  std::shared_ptr<const std::vector<Unit>> units_;  // null: nothing
};

// Where a coordinator keeps a member (EpochGroup's slots): not a Kafka
// field, the simulator's routing hint. The coordinator hands it out with
// each answer and the member sends it back with its next heartbeat, so
// finding the member hashes no id: that lookup, with its cache misses, was
// a tenth of a 10,000-member group's rolling bounce (issue 16). Checked
// against the member id, so a stale one (the member gone, a new
// coordinator) costs only the lookup by id; it is never in any output.
inline constexpr std::uint32_t kNoMemberSlot = UINT32_MAX;

template <class Unit>
struct HeartbeatAnswer {
  Error error = Error::None;
  std::string member_id;
  std::uint32_t member_slot = kNoMemberSlot;
  int member_epoch = 0;
  Duration heartbeat_interval{0};
  SharedList<Unit> assignment;  // sorted: what the member may own at its epoch
};

}  // namespace rsim::protocols::epoch
