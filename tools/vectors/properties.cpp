#include "tools/vectors/properties.hpp"

#include "tools/vectors/sentences.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <regex>
#include <set>

namespace rsim::vectors {

using protocols::GroupAssignment;
using protocols::GroupSnapshot;
using protocols::TopicPartition;

namespace {

using Subscriptions = std::map<std::string, std::set<std::string>>;

Subscriptions subscriptions(const GroupSnapshot& g) {
  Subscriptions subs;
  for (const auto& m : g.members) subs[m.member_id] = std::set<std::string>(m.topics.begin(), m.topics.end());
  return subs;
}

std::size_t size_of(const GroupAssignment& a, const std::string& m) { return a.count(m) ? a.at(m).size() : 0; }

// Kafka's verifyValidityAndBalance: no member could take a partition from a
// member with two more.
bool movable_balanced(const GroupSnapshot& g, const GroupAssignment& a, std::string& diff) {
  auto subs = subscriptions(g);
  for (const auto& [a1, l1] : a)
    for (const auto& [a2, l2] : a) {
      if (l1.size() < l2.size() + 2) continue;
      for (const auto& tp : l1)
        if (subs[a2].count(tp.topic.name()) != 0) {
          diff += fmt::format("\n      unbalanced: {} has {}, {} has {} and could take {}", a1, l1.size(), a2, l2.size(),
                              protocols::to_string(tp));
          return false;
        }
    }
  return true;
}

// max - min <= 1 among members of equal subscription (all members when
// `across_all`: Kafka's isFullyBalanced).
bool tightly_balanced(const GroupSnapshot& g, const GroupAssignment& a, bool across_all, std::string& diff) {
  std::map<std::set<std::string>, std::vector<std::size_t>> by_subscription;
  for (const auto& [m, topics] : subscriptions(g)) by_subscription[across_all ? std::set<std::string>{} : topics].push_back(size_of(a, m));
  for (const auto& [topics, sizes] : by_subscription) {
    const auto [lo, hi] = std::minmax_element(sizes.begin(), sizes.end());
    if (*hi - *lo > 1) {
      diff += fmt::format("\n      unbalanced: sizes {} differ by {}", sizes, *hi - *lo);
      return false;
    }
  }
  return true;
}

bool idempotent(const PropertyContext& ctx, int generation, std::string& diff) {
  GroupSnapshot again = ctx.group;
  for (auto& m : again.members) {
    m.owned = ctx.got.count(m.member_id) ? ctx.got.at(m.member_id) : std::vector<TopicPartition>{};
    m.generation = generation;
  }
  const GroupAssignment second = ctx.rerun(again);
  bool ok = true;
  for (const auto& m : ctx.group.members) {
    auto w = ctx.got.count(m.member_id) ? ctx.got.at(m.member_id) : std::vector<TopicPartition>{};
    auto h = second.count(m.member_id) ? second.at(m.member_id) : std::vector<TopicPartition>{};
    std::sort(w.begin(), w.end());
    std::sort(h.begin(), h.end());
    if (w != h) {
      ok = false;
      diff += fmt::format("\n      re-run on its own output: {} had {} now {}", m.member_id, fmt::join(protocols::to_strings(w), ","),
                          fmt::join(protocols::to_strings(h), ","));
    }
  }
  return ok;
}

// "the assigned partitions are {t-0, t-1}": the set of partitions assigned.
bool assigned_set(const std::vector<TopicPartition>& want, const GroupAssignment& a, std::string& diff) {
  std::set<TopicPartition> got, expected(want.begin(), want.end());
  for (const auto& [m, l] : a) got.insert(l.begin(), l.end());
  if (got == expected) return true;
  std::vector<TopicPartition> g(got.begin(), got.end());
  diff += fmt::format("\n      assigned set: want {} got {}", fmt::join(protocols::to_strings(want), ","), fmt::join(protocols::to_strings(g), ","));
  return false;
}

std::vector<TopicPartition> partitions_in(const std::string& text) {
  static const std::regex name(R"(([A-Za-z_][\w.]*)-(\d+))");
  std::vector<TopicPartition> out;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), name); it != std::sregex_iterator(); ++it)
    out.push_back(TopicPartition{(*it)[1].str(), std::stoi((*it)[2].str())});
  return out;
}

bool mentions(const std::string& low, std::initializer_list<const char*> words) {
  return std::any_of(words.begin(), words.end(), [&](const char* w) { return low.find(w) != std::string::npos; });
}

std::optional<long> number_in(const std::string& text) {
  static const std::regex n(R"((\d+))");
  std::smatch m;
  if (!std::regex_search(text, m, n)) return std::nullopt;
  return std::stol(m[1]);
}

// "partitionsTransferringOwnership().size() == 2", "2 partitions
// transferring ownership", "no transfers".
std::optional<bool> transfers(const std::string& clause, const std::string& low, const PropertyContext& ctx, std::string& diff) {
  const auto have = ctx.transfers();
  if (!have) return std::nullopt;
  static const std::regex compared(R"((==|!=|<=|>=|<|>)\s*(\d+))");
  std::smatch m;
  std::string op = "==";
  long want = 0;
  if (std::regex_search(clause, m, compared)) {
    op = m[1];
    want = std::stol(m[2]);
  } else if (const auto n = number_in(clause)) {
    want = *n;
  } else if (!mentions(low, {"no ", "none", "nothing", "zero", "empty"})) {
    return std::nullopt;
  }
  const long h = static_cast<long>(*have);
  const bool held = op == "==" ? h == want : op == "!=" ? h != want : op == "<=" ? h <= want : op == ">=" ? h >= want : op == "<" ? h < want : h > want;
  if (!held) diff += fmt::format("\n      {}: got {}", clause, h);
  return held;
}

// `generation` is what a re-run's members report with their owned
// partitions (a remark may say "generation -1").
std::optional<bool> one_clause(const std::string& clause, int generation, const PropertyContext& ctx, std::string& diff) {
  const std::string low = lower(clause);
  if (mentions(low, {"transferring", "transfer"})) return transfers(clause, low, ctx, diff);
  if (mentions(low, {"idempot", "re-run", "rerun", "re-running", "same assignment", "returns the same", "stable"}))
    return idempotent(ctx, generation, diff);
  if (mentions(low, {"sticky", "stickiness", "no partition moves", "no unnecessary", "keep their owned", "keeps its owned", "owned partitions kept"}))
    return sticky(ctx.group, ctx.got, diff);
  if (mentions(low, {"fully balanced", "isfullybalanced"})) return tightly_balanced(ctx.group, ctx.got, true, diff);
  if (mentions(low, {"differs by <=1", "differ by <=1", "differs by <= 1", "differ by <= 1", "differ by at most 1", "differs by at most 1",
                     "max-min <= 1", "max-min<=1", "max - min <= 1"}))
    return tightly_balanced(ctx.group, ctx.got, false, diff);
  if (mentions(low, {"balance"})) return movable_balanced(ctx.group, ctx.got, diff);
  // Claims about one member ("topic-0 assigned to consumer1") or about
  // invalidated ownership are not the group-wide properties below.
  const auto words = tokenize(clause);
  const bool names_member = std::any_of(ctx.group.members.begin(), ctx.group.members.end(), [&](const auto& m) {
    return std::find(words.begin(), words.end(), m.member_id) != words.end();
  });
  if (names_member || mentions(low, {"invalid"})) return std::nullopt;
  if (mentions(low, {"assigned", "assignment set", "set of"}) && !partitions_in(clause).empty()) return assigned_set(partitions_in(clause), ctx.got, diff);
  if (mentions(low, {"valid", "exactly once", "every partition", "all partitions", "each partition", "complete"}))
    return valid_and_complete(ctx.group, ctx.got, diff);
  return std::nullopt;
}

// Clauses: split on ';' and " and " once remarks are dropped.
std::vector<std::string> clauses(const std::string& text) {
  std::vector<std::string> out;
  for (const auto& part : split(without_remarks(text), ";")) {
    std::string rest = part;
    for (auto at = rest.find(" and "); at != std::string::npos; at = rest.find(" and ")) {
      out.push_back(trim(rest.substr(0, at)));
      rest = rest.substr(at + 5);
    }
    out.push_back(trim(rest));
  }
  return out;
}

}  // namespace

bool valid_and_complete(const GroupSnapshot& g, const GroupAssignment& a, std::string& diff) {
  std::map<TopicPartition, std::string> owner;
  auto subs = subscriptions(g);
  for (const auto& [m, l] : a)
    for (const auto& tp : l) {
      if (!owner.emplace(tp, m).second) {
        diff += fmt::format("\n      {} assigned twice", protocols::to_string(tp));
        return false;
      }
      if (subs[m].count(tp.topic.name()) == 0) {
        diff += fmt::format("\n      {} given to {}, not subscribed", protocols::to_string(tp), m);
        return false;
      }
    }
  for (const auto& [t, n] : g.topics) {
    const auto& topic = t;  // a lambda may not capture a structured binding (clang 14)
    const bool wanted = std::any_of(subs.begin(), subs.end(), [&](const auto& s) { return s.second.count(topic) != 0; });
    for (int p = 0; wanted && p < n; ++p)
      if (owner.count(TopicPartition{t, p}) == 0) {
        diff += fmt::format("\n      {}-{} unassigned", t, p);
        return false;
      }
  }
  return true;
}

bool sticky(const GroupSnapshot& g, const GroupAssignment& a, std::string& diff) {
  std::map<TopicPartition, int> claims;  // a partition two members claim belongs to neither
  for (const auto& m : g.members)
    for (const auto& tp : m.owned) ++claims[tp];
  bool ok = true;
  for (const auto& m : g.members) {
    const std::set<std::string> topics(m.topics.begin(), m.topics.end());
    std::size_t kept_owned = 0;
    std::vector<TopicPartition> lost;
    for (const auto& tp : m.owned) {
      if (topics.count(tp.topic.name()) == 0 || claims[tp] > 1 || !g.topics.count(tp.topic.name()) || tp.partition >= g.topics.at(tp.topic.name())) continue;
      ++kept_owned;
      const auto& now = a.count(m.member_id) ? a.at(m.member_id) : std::vector<TopicPartition>{};
      if (std::find(now.begin(), now.end(), tp) == now.end()) lost.push_back(tp);
    }
    if (!lost.empty() && size_of(a, m.member_id) >= kept_owned) {
      ok = false;
      diff += fmt::format("\n      not sticky: {} lost {} but did not shrink ({} owned, {} now)", m.member_id,
                          fmt::join(protocols::to_strings(lost), ","), kept_owned, size_of(a, m.member_id));
    }
  }
  return ok;
}

PropertyVerdict check_property(const std::string& text, const PropertyContext& ctx, std::string& diff) {
  PropertyVerdict v;
  bool all = true;
  const int generation = mentions(lower(text), {"generation -1", "default_generation"}) ? -1 : 1;
  for (const auto& c : clauses(text)) {
    if (c.empty()) continue;
    std::string clause_diff;
    const auto held = one_clause(c, generation, ctx, clause_diff);
    if (!held) return PropertyVerdict{std::nullopt, c};
    all &= *held;
    diff += clause_diff;
  }
  v.held = all;
  return v;
}

}  // namespace rsim::vectors
