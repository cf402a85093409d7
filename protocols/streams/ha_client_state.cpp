#include "protocols/streams/ha_client_state.hpp"

#include <charconv>
#include <optional>
#include <stdexcept>

namespace rsim::protocols::streams::ha {

namespace {

// A sub-topology id that is a decimal number, as Kafka's (an int) always is.
std::optional<long long> as_number(const std::string& s) {
  long long n = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), n);
  if (s.empty() || ec != std::errc{} || end != s.data() + s.size()) return std::nullopt;
  return n;
}

int three_way(auto a, auto b) { return a < b ? -1 : (b < a ? 1 : 0); }

}  // namespace

int KafkaTaskOrder::compare(const TaskId& a, const TaskId& b) {
  // One sub-topology (the common case) orders by partition, whatever its id:
  // the rules below agree, without parsing the id at every comparison.
  if (a.subtopology == b.subtopology) return three_way(a.partition, b.partition);
  const auto na = as_number(a.subtopology), nb = as_number(b.subtopology);
  if (na && nb && *na != *nb) return three_way(*na, *nb);
  if (na.has_value() != nb.has_value()) return na ? -1 : 1;
  if (!na && a.subtopology != b.subtopology) return three_way(a.subtopology, b.subtopology);
  return three_way(a.partition, b.partition);
}

ClientState::ClientState(int capacity, TaskLags lags, std::optional<std::int64_t> unlisted_lag)
    : capacity_(capacity), lags_(std::move(lags)), unlisted_lag_(unlisted_lag) {
  if (capacity_ <= 0) throw std::invalid_argument("a client's capacity (stream threads) must be positive");
}

std::int64_t ClientState::lag_for(const TaskId& t) const {
  if (const auto it = lags_.find(t); it != lags_.end()) return it->second;
  if (unlisted_lag_) return *unlisted_lag_;
  throw std::invalid_argument("no lag for stateful task " + to_string(t));
}

void ClientState::assert_not_assigned(const TaskId& t) const {
  if (has_assigned(t)) throw std::logic_error("task " + to_string(t) + " is already assigned to this client");
}

void ClientState::assign_active(const TaskId& t) {
  assert_not_assigned(t);
  active_.insert(t);
}

void ClientState::unassign_active(const TaskId& t) {
  if (active_.erase(t) == 0) throw std::logic_error("task " + to_string(t) + " is not active on this client");
}

void ClientState::assign_standby(const TaskId& t) {
  assert_not_assigned(t);
  standby_.insert(t);
}

void ClientState::unassign_standby(const TaskId& t) {
  if (standby_.erase(t) == 0) throw std::logic_error("task " + to_string(t) + " is not a standby on this client");
}

}  // namespace rsim::protocols::streams::ha
