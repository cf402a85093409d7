// `rebalance-sim swarm`: many seeds per protocol, each a random fault
// schedule (or a given scenario file under many seeds), judged by the safety
// and liveness checkers; the first failing seed of each protocol and kind of
// failure is shrunk to a small scenario file written to disk with the command
// that reproduces it. The report depends only on the seeds and protocols,
// not on --jobs.
#pragma once

#include "scenarios/scenario.hpp"
#include "tools/swarm/isolation.hpp"
#include "tools/swarm/verdict.hpp"

#include <cstdint>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace rsim::swarm {

struct CampaignOptions {
  std::optional<std::string> file;     // a scenario file; else random scenarios
  std::vector<std::string> protocols;  // random: every runnable one; file: its own
  std::uint64_t first_seed = 1;        // random: 1; file: the file's seed
  std::uint64_t seeds = 100;
  int scale = 1;                       // random: the group and its faults multiplied (generator.hpp)
  Isolation isolation;
  bool shrink = true;
  int shrink_budget = 400;             // candidate runs per shrink
  std::string out_dir = "swarm-findings";
  bool progress = false;               // a status line on stderr
};

struct Failure {
  std::string protocol;
  std::uint64_t seed = 0;
  Verdict verdict;
  std::string shrunk_file;  // written, if this one was shrunk
  std::string reproduce;    // the command that reproduces it
  std::string shrunk_summary;
};

struct ProtocolTally {
  std::string protocol;
  std::uint64_t runs = 0, failed = 0, liveness_skipped = 0;
  std::uint64_t stalled = 0;  // runs where Kafka's static-restart stall left a resource unassigned
  std::map<std::string, std::uint64_t> zombies;  // by cause
  std::uint64_t reissued = 0;
  std::int64_t longest_zombie_us = 0, slowest_settle_us = 0;
  std::uint64_t events = 0;
};

struct CampaignResult {
  std::vector<ProtocolTally> tallies;
  std::vector<Failure> failures;  // by protocol, then seed
};

CampaignResult run_campaign(const CampaignOptions& options);
void write_report(std::ostream& out, const CampaignOptions& options, const CampaignResult& result);

// The scenario a seed stands for: a random one, or the file's with that seed.
scenario::Scenario scenario_for(const CampaignOptions& options, const std::optional<scenario::Scenario>& file,
                                const std::string& protocol, std::uint64_t seed);

}  // namespace rsim::swarm
