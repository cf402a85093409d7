// Reading the steps of Connect vectors by their structure, not by the exact
// sentences of the bundled files: the extractor words the same facts many
// ways ("add worker2", "worker2 joins", "worker1 gone", "time advances
// 150000"), so a step is tokenized and read as verbs, subjects, amounts and
// claims. Remarks in parentheses are dropped. Words that fit no part of the
// grammar make the step Unreadable, naming them, so its case is skipped with
// that reason rather than guessed at.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace rsim::vectors::connect_grammar {

// What could not be read: the part of the step, and why.
struct Unreadable : std::runtime_error {
  Unreadable(std::string part_, std::string why_)
      : std::runtime_error("'" + part_ + "': " + why_), part(std::move(part_)), why(std::move(why_)) {}
  std::string part, why;
};

enum class Verb {
  None,
  Join,         // a worker joins (or comes back), maybe running some work
  Leave,        // a worker leaves; of a connector: it is deleted
  Delete,       // a connector is deleted
  Sleep,        // the clock advances
  Rebalance,    // performStandardRebalance (or a failed one, or with a lag)
  NewAssignor,  // a new leader: a fresh assignor instance
  Assign,       // a worker present now runs the listed work
  NoOp,         // "worker1 still empty", "no worker joins"
  NoLost,       // nothing is lost this step
  SetLost,      // "lost = connector2-3, task-4..7" ("lost = its load" sets nothing)
};

// A sleep's length: N ms, or the assignor's current delay / divisor.
struct Amount {
  std::int64_t ms = 0;
  bool of_delay = false;
  int divisor = 1;
};

struct Action {
  Verb verb = Verb::None;
  std::vector<std::string> names;  // the workers or connectors it is about
  std::vector<std::string> items;  // the work listed after "running"/"with"/"=", as written
  Amount amount;
  bool failed = false;             // a rebalance computed but not applied
  int generation_lag = 1;          // lastCompletedGeneration = generation - lag
  bool sleep_first = false;        // "rebalance after the delay": sleep `amount`, then rebalance
};

// The actions of one round or of a step's "what happens" part, in order;
// separated by ';', ',', "and", "then". A part with subjects but no verb
// takes the previous verb ("remove worker2, worker3"), one with a verb but
// no subject the previous subjects ("worker1 leaves and rejoins").
std::vector<Action> read_actions(const std::string& text);

enum class ClaimKind {
  Delay,           // delay == number
  DelayAbove,      // delay > number
  Candidates,      // candidateWorkersForReassignment == names
  Scheduled,       // scheduledRebalance == 0, or now + number
  LostOn,          // the lost work now runs on (the union of) names
  LostToReassign,  // the lost work is handed to general re-assignment
  NothingToReassign,
};

struct Claim {
  ClaimKind kind = ClaimKind::Delay;
  std::int64_t number = 0;
  bool from_now = false;  // scheduledRebalance relative to the clock
  std::vector<std::string> names;
  std::string text;  // as written, for messages
};

// A lost-assignment step "what happens: what holds" (also "->" or "=>").
std::pair<std::string, std::string> split_step(const std::string& text);
std::vector<Claim> read_claims(const std::string& text);

}  // namespace rsim::vectors::connect_grammar
