// Properties that Kafka's assignor tests assert in code and the vector files
// describe in words ("valid and balanced", "sticky", "re-running returns the
// same", "every partition assigned exactly once", "2 partitions transferring
// ownership"). A property is read clause by clause (';' and "and" separate,
// remarks in parentheses dropped); a clause that is none of the known
// properties makes the whole property unknown, so its case is skipped with
// that clause as the reason rather than passed unchecked.
#pragma once

#include "protocols/assignors/assignor.hpp"

#include <cstddef>
#include <functional>
#include <optional>
#include <string>

namespace rsim::vectors {

struct PropertyContext {
  const protocols::GroupSnapshot& group;  // the input: subscriptions and what each member owned
  const protocols::GroupAssignment& got;  // the assignor's answer
  // The assignor again (a cooperative one run to its final assignment).
  std::function<protocols::GroupAssignment(const protocols::GroupSnapshot&)> rerun;
  // partitionsTransferringOwnership().size(), when the assignor reports it.
  std::function<std::optional<std::size_t>()> transfers;
};

struct PropertyVerdict {
  std::optional<bool> held;  // null: not a property this runner knows
  std::string unknown;       // the clause it could not read
};

PropertyVerdict check_property(const std::string& text, const PropertyContext& ctx, std::string& diff);

// Each partition of the subscribed topics assigned exactly once, to a
// subscriber.
bool valid_and_complete(const protocols::GroupSnapshot& g, const protocols::GroupAssignment& a, std::string& diff);
// No owned partition of a still-subscribed topic moves away from a member
// whose share does not shrink: a move is only for balance.
bool sticky(const protocols::GroupSnapshot& g, const protocols::GroupAssignment& a, std::string& diff);

}  // namespace rsim::vectors
