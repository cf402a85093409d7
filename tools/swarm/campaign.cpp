#include "tools/swarm/campaign.hpp"

#include "protocols/catalog.hpp"
#include "scenarios/loader.hpp"
#include "scenarios/writer.hpp"
#include "tools/swarm/generator.hpp"
#include "tools/swarm/shrink.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <set>

namespace rsim::swarm {

scenario::Scenario scenario_for(const CampaignOptions& options, const std::optional<scenario::Scenario>& file,
                                const std::string& protocol, std::uint64_t seed) {
  if (file) {
    scenario::Scenario s = *file;
    s.seed = seed;
    return s;
  }
  // What runs is the file the generator's scenario makes: the loader checks
  // it, and a finding reproduces from the written file exactly.
  const auto generated = random_scenario(seed, protocol, options.scale);
  return scenario::load_text(scenario::to_yaml(generated), fmt::format("{}.yaml", generated.name));
}

namespace {

// How a random campaign's scale is said: nothing at the default.
std::string scale_option(const CampaignOptions& o) { return o.scale == 1 ? "" : fmt::format(" --scale {}", o.scale); }
std::string scale_note(const CampaignOptions& o) { return o.scale == 1 ? "" : fmt::format(" at scale {}", o.scale); }

std::string failure_kind(const ChildResult& r) { return r.timed_out ? "hang" : "crash"; }

std::string describe_size(const scenario::Scenario& s) {
  std::size_t joins = 0;
  for (const auto& ev : s.events) joins += std::holds_alternative<scenario::Join>(ev.action) ? 1 : 0;
  return fmt::format("{} member(s), {} event(s), {} topic(s)", s.members.size() + joins, s.events.size(),
                     s.topics.size() + s.connectors.size());
}

std::string write_finding(const CampaignOptions& o, const Failure& f, const scenario::Scenario& original,
                          const Shrunk& shrunk) {
  std::filesystem::create_directories(o.out_dir);
  const std::string path = fmt::format("{}/{}-{}-seed{}.yaml", o.out_dir, f.protocol, f.verdict.kind, f.seed);
  scenario::Scenario s = shrunk.scenario;
  s.protocol = f.protocol;
  s.name = fmt::format("swarm-{}-{}-seed{}", f.protocol, f.verdict.kind, f.seed);
  const std::string found_by = o.file ? fmt::format("rebalance-sim swarm {} --protocols {} (seed {})", *o.file, f.protocol, f.seed)
                                      : fmt::format("rebalance-sim swarm --random --protocols {} (seed {})", f.protocol, f.seed);
  const std::string header = fmt::format(
      "swarm finding: {} under {}\n{}\nfound by: {}\nshrunk in {} runs from {} to {}\nreproduce: rebalance-sim swarm {} "
      "--protocols {}\n",
      f.verdict.kind, f.protocol, shrunk.verdict.message, found_by, shrunk.runs, describe_size(original),
      describe_size(s), path, f.protocol);
  std::ofstream(path, std::ios::binary) << scenario::to_yaml(s, header);
  return path;
}

}  // namespace

CampaignResult run_campaign(const CampaignOptions& o) {
  std::optional<scenario::Scenario> file;
  if (o.file) file = scenario::load_file(*o.file);
  const std::size_t per_protocol = o.seeds;
  const std::size_t n = per_protocol * o.protocols.size();
  auto task = [&](std::size_t i) {
    return std::pair<const std::string&, std::uint64_t>{o.protocols[i / per_protocol], o.first_seed + i % per_protocol};
  };
  std::size_t finished = 0;
  const auto results = run_isolated(
      n, o.isolation,
      [&](std::size_t i) {
        const auto [protocol, seed] = task(i);
        scenario::Scenario s;
        try {
          s = scenario_for(o, file, protocol, seed);
        } catch (const scenario::InputError& e) {  // a generator bug: the loader refuses what it made
          Verdict v;
          v.kind = "refused";
          v.message = e.what();
          return v.to_json();
        }
        return judge(s, protocol).to_json();
      },
      [&](std::size_t) {
        ++finished;
        if (o.progress && (finished % 10 == 0 || finished == n))
          std::cerr << fmt::format("\rswarm: {}/{} runs", finished, n) << (finished == n ? "\n" : "") << std::flush;
      });

  CampaignResult out;
  std::map<std::string, ProtocolTally> tallies;
  std::set<std::pair<std::string, std::string>> shrunk;  // (protocol, kind) already shrunk
  for (std::size_t i = 0; i < n; ++i) {
    const auto [protocol, seed] = task(i);
    Verdict v;
    if (results[i].ok) {
      v = Verdict::from_json(results[i].output);
    } else {
      v.kind = failure_kind(results[i]);
      v.message = results[i].failure();
    }
    ProtocolTally& t = tallies[protocol];
    t.protocol = protocol;
    ++t.runs;
    for (const auto& [cause, n] : v.zombies) t.zombies[cause] += static_cast<std::uint64_t>(n);
    t.longest_zombie_us = std::max(t.longest_zombie_us, v.longest_zombie_us);
    t.reissued += static_cast<std::uint64_t>(v.generations_reissued);
    t.slowest_settle_us = std::max(t.slowest_settle_us, v.settle_us);
    t.liveness_skipped += v.liveness_skipped.empty() ? 0 : 1;
    t.stalled += v.stranded == 0 ? 0 : 1;
    t.events += v.events;
    if (!v.failed()) continue;
    ++t.failed;
    Failure f{protocol, seed, v, {}, {}, {}};
    if (o.shrink && v.kind != "refused" && shrunk.insert({protocol, v.kind}).second) {
      const auto original = scenario_for(o, file, protocol, seed);
      const Shrunk s = shrink(original, protocol, v, o.isolation, o.shrink_budget);
      f.shrunk_file = write_finding(o, f, original, s);
      f.shrunk_summary = fmt::format("{} -> {}", describe_size(original), describe_size(s.scenario));
    }
    f.reproduce = f.shrunk_file.empty()
                      ? (o.file ? fmt::format("rebalance-sim swarm {} --protocols {} --seeds {}..{}", *o.file, protocol, seed, seed)
                                : fmt::format("rebalance-sim swarm --random{} --protocols {} --seeds {}..{}", scale_option(o), protocol,
                                              seed, seed))
                      : fmt::format("rebalance-sim swarm {} --protocols {}", f.shrunk_file, protocol);
    out.failures.push_back(std::move(f));
  }
  for (const auto& p : o.protocols) out.tallies.push_back(tallies[p]);
  return out;
}

void write_report(std::ostream& out, const CampaignOptions& o, const CampaignResult& r) {
  out << fmt::format("swarm: {}, seeds {}..{}, protocols {}\n", o.file ? *o.file : "random scenarios" + scale_note(o),
                     o.first_seed, o.first_seed + o.seeds - 1, fmt::join(o.protocols, ","));
  // Zombies are Kafka's own overlaps, by cause (metrics/ownership.hpp).
  out << fmt::format("{:<24} {:>6} {:>6} {:>8} {:>8} {:>8} {:>8} {:>8} {:>14} {:>9} {:>12} {:>9} {:>7}\n", "protocol", "runs",
                     "failed", "removed", "rejoin", "convert", "stale", "epoch", "longest-zombie", "reissued", "settle-max",
                     "unchecked", "stalled");
  auto zombies = [](const ProtocolTally& t, const char* cause) {
    auto it = t.zombies.find(cause);
    return it == t.zombies.end() ? std::uint64_t{0} : it->second;
  };
  for (const auto& t : r.tallies)
    out << fmt::format("{:<24} {:>6} {:>6} {:>8} {:>8} {:>8} {:>8} {:>8} {:>14} {:>9} {:>12} {:>9} {:>7}\n", t.protocol, t.runs,
                       t.failed, zombies(t, "removed"), zombies(t, "not rejoined"), zombies(t, "conversion"),
                       zombies(t, "stale claim"), zombies(t, "stale epoch"), format_duration(Duration{t.longest_zombie_us}),
                       t.reissued, format_duration(Duration{t.slowest_settle_us}), t.liveness_skipped, t.stalled);
  if (r.failures.empty()) {
    out << "no failures\n";
    return;
  }
  out << fmt::format("{} failure(s):\n", r.failures.size());
  for (const auto& f : r.failures) {
    out << fmt::format("  {} seed {}: {}: {}\n", f.protocol, f.seed, f.verdict.kind, f.verdict.message);
    if (!f.shrunk_file.empty()) out << fmt::format("    shrunk to {} ({})\n", f.shrunk_file, f.shrunk_summary);
    out << fmt::format("    reproduce: {}\n", f.reproduce);
  }
}

}  // namespace rsim::swarm
