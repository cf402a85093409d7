#include "sim/trace.hpp"

namespace rsim {

const TraceValue* TraceEvent::find(std::string_view key) const {
  for (const auto& f : fields)
    if (f.key == key) return &f.value;
  return nullptr;
}

std::optional<std::int64_t> TraceEvent::integer(std::string_view key) const {
  const TraceValue* v = find(key);
  if (v == nullptr || !std::holds_alternative<std::int64_t>(*v)) return std::nullopt;
  return std::get<std::int64_t>(*v);
}

const std::string* TraceEvent::text(std::string_view key) const {
  const TraceValue* v = find(key);
  return v != nullptr ? std::get_if<std::string>(v) : nullptr;
}

const NameList* TraceEvent::list(std::string_view key) const {
  const TraceValue* v = find(key);
  return v != nullptr ? std::get_if<NameList>(v) : nullptr;
}

void Trace::observe(TraceObserver* observer, bool keep_events) {
  observer_ = observer;
  keep_events_ = keep_events;
  if (observer_)
    for (const auto& ev : events_) observer_->observe(ev);
  if (!keep_events_) events_ = {};
}

std::uint32_t Trace::actor_slot(const std::string& actor) {
  return actor_slots_.try_emplace(actor, static_cast<std::uint32_t>(actor_slots_.size())).first->second;
}

void Trace::emit(TraceEvent ev) {
  if (observer_) observer_->observe(ev);
  if (keep_events_) events_.push_back(std::move(ev));
}

}  // namespace rsim
