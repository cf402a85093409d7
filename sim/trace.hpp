// The trace: the stream of events that actors emit and collectors read
// (after the run: metrics and reports replay it in order).
//
// The kernel knows no protocol words, so an event is generic: a time, the
// actor that emitted it, a kind, and ordered key/value fields. Field order is
// emission order, which keeps serialised output stable. Collectors (metrics,
// timelines) read the trace; they never reach into actors.
#pragma once

#include "sim/name.hpp"
#include "sim/time.hpp"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace rsim {

// Lists (resources, members) hold interned names: see sim/name.hpp.
using TraceValue = std::variant<std::int64_t, std::string, NameList>;

struct TraceField {
  std::string key;
  TraceValue value;
};

// An actor's number in its trace (Trace::actor_slot): dense, the same for
// every event of one name; not part of what an event says, and absent from
// events read back or built by hand.
inline constexpr std::uint32_t kNoActorSlot = UINT32_MAX;

struct TraceEvent {
  Time at;
  std::string actor;
  std::string kind;
  std::vector<TraceField> fields;
  // For observers that keep state per actor: an index into a vector in
  // place of a lookup by name (kNoActorSlot: look the name up).
  std::uint32_t actor_slot = kNoActorSlot;

  const TraceValue* find(std::string_view key) const;
  std::optional<std::int64_t> integer(std::string_view key) const;
  const std::string* text(std::string_view key) const;
  const NameList* list(std::string_view key) const;
};

// Told every event as it is emitted: what computes metrics as the run goes.
class TraceObserver {
 public:
  virtual ~TraceObserver() = default;
  virtual void observe(const TraceEvent& ev) = 0;
};

class Trace {
 public:
  void emit(TraceEvent ev);
  void emit(Time at, std::string actor, std::string kind, std::vector<TraceField> fields = {},
            std::uint32_t actor_slot = kNoActorSlot) {
    emit(TraceEvent{at, std::move(actor), std::move(kind), std::move(fields), actor_slot});
  }
  // The number of `actor` in this trace: the next one the first time a name
  // is asked for (an actor asks once, when it is made).
  std::uint32_t actor_slot(const std::string& actor);
  // A routine event says nothing that metrics read (a classic heartbeat
  // answered with no error); timelines that show everything want it, and a
  // trace that only feeds a summary drops it, so a long quiet stretch costs
  // no memory.
  void emit_routine(Time at, std::string actor, std::string kind, std::vector<TraceField> fields = {},
                    std::uint32_t actor_slot = kNoActorSlot) {
    if (keep_routine_) emit(at, std::move(actor), std::move(kind), std::move(fields), actor_slot);
  }
  void keep_routine(bool keep) { keep_routine_ = keep; }
  // Every event emitted so far (in order) and from now on goes to
  // `observer` (not owned; null: none); with keep_events false the trace
  // itself keeps none, so a run whose metrics are folded as it goes holds no
  // trace in memory.
  void observe(TraceObserver* observer, bool keep_events);
  const std::vector<TraceEvent>& events() const { return events_; }

 private:
  std::vector<TraceEvent> events_;
  std::map<std::string, std::uint32_t> actor_slots_;
  bool keep_routine_ = true;
  TraceObserver* observer_ = nullptr;
  bool keep_events_ = true;
};

}  // namespace rsim
