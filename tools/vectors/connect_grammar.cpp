#include "tools/vectors/connect_grammar.hpp"

#include "tools/vectors/sentences.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <map>

namespace rsim::vectors::connect_grammar {

namespace {

// What a word does in a step. Filler words carry nothing the runner needs
// ("a new worker", "the follow-up rebalance"), so they are read and dropped.
enum class Kind { Join, Leave, Delete, Sleep, Rebalance, Fail, Assignor, Fresh, Running, Delay, Half, Unit, Generation, Lost, Not, Still, Filler };

const std::map<std::string, Kind>& vocabulary() {
  static const std::map<std::string, Kind> words = [] {
    std::map<std::string, Kind> w;
    auto put = [&](Kind k, std::initializer_list<const char*> list) {
      for (const char* s : list) w[s] = k;
    };
    put(Kind::Join, {"add", "adds", "added", "join", "joins", "joined", "joining", "back", "return", "returns", "returned",
                     "rejoin", "rejoins", "rejoined", "come", "comes", "came", "arrive", "arrives", "arrived", "start",
                     "starts", "started", "appear", "appears", "appeared", "addnewemptyworkers", "addnewworker"});
    put(Kind::Leave, {"remove", "removes", "removed", "leave", "leaves", "left", "leaving", "gone", "goes", "depart",
                      "departs", "departed", "crash", "crashes", "crashed", "die", "dies", "died", "drop", "drops", "dropped",
                      "stop", "stops", "stopped", "exit", "exits", "exited", "disappear", "disappears", "disappeared",
                      "removeworkers", "lost-worker"});
    put(Kind::Delete, {"delete", "deletes", "deleted", "removeconnector"});
    put(Kind::Sleep, {"sleep", "sleeps", "slept", "wait", "waits", "waited", "advance", "advances", "advanced", "pass",
                      "passes", "passed", "elapse", "elapses", "elapsed", "later", "after"});
    put(Kind::Rebalance, {"rebalance", "rebalances", "rebalanced", "rebalancing", "performstandardrebalance"});
    put(Kind::Fail, {"fail", "fails", "failed", "failing", "failure", "unsuccessful", "unapplied"});
    put(Kind::Assignor, {"assignor", "leader", "initassignor"});
    put(Kind::Fresh, {"new", "fresh", "restarted", "recreated", "re-created", "reset", "re-initialized", "reinitialized"});
    put(Kind::Running, {"running", "runs", "run", "owning", "owns", "holding", "holds", "with", "carrying", "given", "gets",
                        "got", "has", "having", "now"});
    put(Kind::Delay, {"delay", "rebalancedelay"});
    put(Kind::Half, {"half"});
    put(Kind::Unit, {"ms", "millis", "milliseconds", "millisecond", "s", "sec", "secs", "second", "seconds", "min", "minute",
                     "minutes"});
    put(Kind::Generation, {"lastcompletedgeneration", "last", "completed", "generation", "generations", "lag", "behind"});
    put(Kind::Lost, {"lost"});
    put(Kind::Not, {"no", "not", "nothing", "none", "without", "never"});
    put(Kind::Still, {"still", "stays", "stay", "remains", "remain", "unchanged", "change", "changes", "idle"});
    put(Kind::Filler, {"a", "an", "the", "worker", "workers", "member", "members", "connector", "connectors", "task", "tasks",
                       "time", "clock", "by", "for", "of", "again", "another", "follow-up", "followup", "second", "third",
                       "standard", "perform", "performs", "immediately", "also", "once", "more", "same", "configs", "config",
                       "empty", "its", "state", "is", "are", "was", "were", "to", "in", "on", "does", "did", "yet",
                       "group", "instance", "one", "and", "then", "&", "revocations", "revocation", "revokes", "revoking",
                       "successive", "round", "rounds", "first", "initial", "next", "final", "expected", "other", "load", "assignment", "assignments", "all", "it", "mocktime", "(", ")",
                       "+", "=", "-", ",", "'", "\"", "!"});
    return w;
  }();
  return words;
}

std::optional<Kind> kind_of(const std::string& token) {
  const auto& v = vocabulary();
  const auto it = v.find(lower(token));
  if (it == v.end()) return std::nullopt;
  return it->second;
}

// A worker or connector: letters and digits, or a task CONNECTOR-N(..M).
bool is_name(const std::string& t) {
  const bool letter = std::any_of(t.begin(), t.end(), [](char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0; });
  const bool digit = std::any_of(t.begin(), t.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; });
  return letter && digit && !kind_of(t);
}

std::int64_t unit_ms(const std::string& u) {
  const std::string w = lower(u);
  if (w == "s" || w.rfind("sec", 0) == 0) return 1000;
  if (w.rfind("min", 0) == 0) return 60000;
  return 1;
}

int lag_of(const std::string& token) {  // "generation-2" -> 2
  const auto dash = token.rfind('-');
  return dash == std::string::npos || !is_number(token.substr(dash + 1)) ? 0 : std::stoi(token.substr(dash + 1));
}

bool separator(const std::string& t) { return t == ";" || t == "," || lower(t) == "and" || lower(t) == "then" || t == "&"; }

// Splits tokens into parts; after a "running" word a list of work goes on
// across ',' and "and" while the next word is an item ("running connector1,
// connector1-0..3"), and ends at ';', "then" or a word that is not an item.
std::vector<std::vector<std::string>> parts(const std::vector<std::string>& tokens) {
  std::vector<std::vector<std::string>> out(1);
  bool listing = false;
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    const std::string& t = tokens[i];
    const bool item_next = i + 1 < tokens.size() && is_name(tokens[i + 1]);
    if (t == ";" || lower(t) == "then" || (separator(t) && !(listing && item_next))) {
      out.emplace_back();
      listing = false;
      continue;
    }
    const auto k = kind_of(t);
    if ((k == Kind::Running && lower(t) != "now") || t == "=") listing = true;
    out.back().push_back(t);
  }
  std::erase_if(out, [](const auto& p) { return p.empty(); });
  return out;
}

struct Reading {
  Action action;
  std::vector<std::string> unknown;
  bool join = false, leave = false, del = false, sleep = false, rebalance = false, fail = false;
  bool assignor = false, fresh = false, running = false, lost = false, negated = false, still = false, generation = false;
  std::optional<std::int64_t> number;
};

void read_word(Reading& r, const std::vector<std::string>& p, std::size_t& i) {
  const std::string& t = p[i];
  if (r.generation && lag_of(t) > 0) {  // "lastCompletedGeneration = generation-2"
    r.action.generation_lag = lag_of(t);
    return;
  }
  if (t == "=" && r.lost) r.running = true;  // "lost = connector2-3, task-4..7"
  if (r.running && t != "," && t != "+" && lower(t) != "and") {
    if (!kind_of(t) || is_name(t)) {
      r.action.items.push_back(t);
      return;
    }
  }
  if (const auto k = kind_of(t)) {
    switch (*k) {
      case Kind::Join: r.join = true; break;
      case Kind::Leave: r.leave = true; break;
      case Kind::Delete: r.del = true; break;
      case Kind::Sleep: r.sleep = true; break;
      case Kind::Rebalance: r.rebalance = true; break;
      case Kind::Fail: r.fail = true; break;
      case Kind::Assignor: r.assignor = true; break;
      case Kind::Fresh: r.fresh = true; break;
      case Kind::Running: r.running = lower(t) != "now" || r.running; break;
      case Kind::Delay: r.action.amount.of_delay = true; break;
      case Kind::Half: r.action.amount.divisor = 2; break;
      case Kind::Unit: if (r.number) r.number = *r.number * unit_ms(t); break;
      case Kind::Generation: r.generation = true; break;
      case Kind::Lost: r.lost = true; break;
      case Kind::Not: r.negated = true; break;
      case Kind::Still: r.still = true; break;
      case Kind::Filler: break;
    }
    return;
  }
  if (t == "/" && i + 1 < p.size() && is_number(p[i + 1])) {
    r.action.amount.divisor = std::stoi(p[++i]);
  } else if (is_number(t) || (is_number(t.substr(0, 1)) && t.find('_') != std::string::npos)) {  // "300_000"
    std::string digits = t;
    std::erase(digits, '_');
    if (!is_number(digits)) r.unknown.push_back(t);
    else r.number = std::stoll(digits);
  } else if (is_name(t)) {
    r.action.names.push_back(t);
  } else {
    r.unknown.push_back(t);
  }
}

// Decides the verb once every word of the part is read.
void settle(Reading& r, const std::string& text) {
  Action& a = r.action;
  auto refuse = [&](const std::string& why) { throw Unreadable(text, why); };
  if (!r.unknown.empty()) refuse(fmt::format("unknown words {}", fmt::join(r.unknown, " ")));
  if (r.lost) {
    a.verb = r.negated ? Verb::NoLost : Verb::SetLost;
  } else if (r.rebalance) {
    if (!a.names.empty()) refuse("a rebalance is not about a worker");
    a.verb = Verb::Rebalance;
    a.failed = r.fail;
    if (r.generation && r.number) {
      a.generation_lag = static_cast<int>(*r.number);
    } else if (r.sleep && (r.number || a.amount.of_delay)) {
      a.sleep_first = true;
      a.amount.ms = r.number.value_or(0);
    } else if (r.number || a.amount.of_delay) {
      refuse("an amount in a rebalance");
    }
  } else if (r.assignor && r.fresh) {
    a.verb = Verb::NewAssignor;
  } else if (r.sleep) {
    if (!r.number && !a.amount.of_delay) refuse("a sleep without a length");
    a.amount.ms = r.number.value_or(0);
    a.verb = Verb::Sleep;
  } else if (r.negated && (r.join || r.leave || !a.names.empty() || r.still)) {
    a.verb = Verb::NoOp;  // "no worker joins", "worker1 does not return"
  } else if (r.number || a.amount.of_delay) {
    refuse("an amount without a sleep");
  } else if (r.del) {
    a.verb = Verb::Delete;
  } else if (r.leave || (r.fail && !a.names.empty())) {
    a.verb = Verb::Leave;
  } else if (r.join) {
    a.verb = Verb::Join;
  } else if (r.running && !a.items.empty()) {
    a.verb = Verb::Assign;
  } else if (r.still) {
    a.verb = Verb::NoOp;
  }
}

}  // namespace

std::vector<Action> read_actions(const std::string& text) {
  std::vector<Action> out;
  for (const auto& p : parts(tokenize(without_remarks(text)))) {
    Reading r;
    for (std::size_t i = 0; i < p.size(); ++i) read_word(r, p, i);
    const std::string shown = fmt::format("{}", fmt::join(p, " "));
    settle(r, shown);
    Action& a = r.action;
    const bool subject_verb = a.verb == Verb::Join || a.verb == Verb::Leave || a.verb == Verb::Delete;
    if (a.verb == Verb::None && !a.names.empty() && !out.empty()) a.verb = out.back().verb;  // "remove worker2, worker3"
    if (subject_verb && a.names.empty() && !out.empty()) a.names = out.back().names;  // "worker1 leaves and rejoins"
    const bool needs_subject = a.verb == Verb::Join || a.verb == Verb::Leave || a.verb == Verb::Delete || a.verb == Verb::Assign;
    if (a.verb == Verb::None) throw Unreadable(shown, "no action");
    if (needs_subject && a.names.empty()) throw Unreadable(shown, "whom does it concern?");
    out.push_back(a);
  }
  return out;
}

std::pair<std::string, std::string> split_step(const std::string& text) {
  for (const char* mark : {":", "->", "=>"}) {
    const auto at = text.find(mark);
    if (at != std::string::npos) return {text.substr(0, at), text.substr(at + std::string(mark).size())};
  }
  throw Unreadable(text, "a step is 'what happens: what holds'");
}

namespace {

bool has(const std::vector<std::string>& low, std::initializer_list<const char*> words) {
  return std::any_of(words.begin(), words.end(), [&](const char* w) { return std::find(low.begin(), low.end(), w) != low.end(); });
}

std::optional<std::int64_t> first_number(const std::vector<std::string>& tokens) {
  for (const auto& t : tokens)
    if (is_number(t)) return std::stoll(t);
  return std::nullopt;
}

std::vector<std::string> names_in(const std::vector<std::string>& tokens) {
  std::vector<std::string> out;
  for (const auto& t : tokens)
    if (is_name(t)) out.push_back(t);
  return out;
}

Claim read_claim(const std::string& text) {
  const auto tokens = tokenize(without_remarks(text));
  std::vector<std::string> low;
  for (const auto& t : tokens) low.push_back(lower(t));
  Claim c;
  c.text = text;
  auto starts = [&](const char* prefix) { return std::any_of(low.begin(), low.end(), [&](const auto& w) { return w.rfind(prefix, 0) == 0; }); };
  const bool negated = has(low, {"no", "not", "nothing", "none", "empty"});
  if (starts("scheduledrebalance") || (has(low, {"scheduled"}) && has(low, {"rebalance"}))) {
    c.kind = ClaimKind::Scheduled;
    c.number = first_number(tokens).value_or(0);
    // Only differences from the clock mean anything: the runner's clock
    // starts at an arbitrary instant, so a bare non-zero N is now + N.
    c.from_now = has(low, {"now", "+"}) || c.number != 0;
    if (!first_number(tokens) && !negated) throw Unreadable(text, "scheduledRebalance of what?");
  } else if (starts("candidate")) {
    c.kind = ClaimKind::Candidates;
    c.names = names_in(tokens);
  } else if (has(low, {"lost"}) || starts("lostassignmentstoreassign") || starts("re-assign") || starts("reassign")) {
    const auto names = names_in(tokens);
    if (!names.empty()) {
      c.kind = ClaimKind::LostOn;
      c.names = names;
    } else if (starts("re-assign") || starts("reassign") || has(low, {"general", "returned", "released"}) ||
               starts("lostassignmentstoreassign")) {
      c.kind = negated ? ClaimKind::NothingToReassign : ClaimKind::LostToReassign;
    } else {
      throw Unreadable(text, "where does the lost work go?");
    }
  } else if (starts("delay")) {
    const auto n = first_number(tokens);
    const bool above = has(low, {">", "gt", "delay_gt", "above", "over", "positive", "greater", "exceeds"});
    if (!n && !above && !negated) throw Unreadable(text, "delay of what?");
    c.kind = above ? ClaimKind::DelayAbove : ClaimKind::Delay;
    c.number = n.value_or(0);
  } else {
    throw Unreadable(text, "unknown claim");
  }
  return c;
}

}  // namespace

std::vector<Claim> read_claims(const std::string& text) {
  std::vector<Claim> out;
  for (const auto& piece : split(text, ",;")) out.push_back(read_claim(piece));
  return out;
}

}  // namespace rsim::vectors::connect_grammar
