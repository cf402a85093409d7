// A member's reconciliation state in an epoch group (Kafka's
// modern/MemberState). The consumer group names them after partitions; a
// Streams group's are the same states over tasks (UNREVOKED_TASKS,
// UNRELEASED_TASKS), so one enum serves EpochGroup<Partitions> now and
// EpochGroup<StreamsTasks> later.
#pragma once

namespace rsim::protocols::epoch {

enum class MemberState { Stable, UnrevokedPartitions, UnreleasedPartitions };

inline const char* state_name(MemberState s) {
  switch (s) {
    case MemberState::Stable:
      return "STABLE";
    case MemberState::UnrevokedPartitions:
      return "UNREVOKED_PARTITIONS";
    case MemberState::UnreleasedPartitions:
      return "UNRELEASED_PARTITIONS";
  }
  return "?";
}

// Member epochs with a meaning of their own (both protocols).
constexpr int kJoinEpoch = 0;
constexpr int kLeaveEpoch = -1;
constexpr int kStaticLeaveEpoch = -2;

}  // namespace rsim::protocols::epoch
