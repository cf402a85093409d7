#include "tools/swarm/verdict.hpp"

#include "metrics/liveness.hpp"
#include "metrics/summary.hpp"
#include "scenarios/errors.hpp"
#include "scenarios/loader.hpp"
#include "scenarios/runner.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>

namespace rsim::swarm {

std::string Verdict::to_json() const {
  nlohmann::ordered_json j{{"kind", kind},
                           {"message", message},
                           {"shape", shape},
                           {"at_us", at_us},
                           {"zombies", zombies},
                           {"longest_zombie_us", longest_zombie_us},
                           {"generations_reissued", generations_reissued},
                           {"settle_us", settle_us},
                           {"liveness_skipped", liveness_skipped},
                           {"stranded", stranded},
                           {"events", events}};
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

Verdict Verdict::from_json(const std::string& line) {
  const auto j = nlohmann::json::parse(line);
  Verdict v;
  v.kind = j.at("kind").get<std::string>();
  v.message = j.at("message").get<std::string>();
  v.shape = j.at("shape").get<std::string>();
  v.at_us = j.at("at_us").get<std::int64_t>();
  v.zombies = j.at("zombies").get<std::map<std::string, int>>();
  v.longest_zombie_us = j.at("longest_zombie_us").get<std::int64_t>();
  v.generations_reissued = j.at("generations_reissued").get<int>();
  v.settle_us = j.at("settle_us").get<std::int64_t>();
  v.liveness_skipped = j.at("liveness_skipped").get<std::string>();
  v.stranded = j.at("stranded").get<int>();
  v.events = j.at("events").get<std::uint64_t>();
  return v;
}

Verdict judge(const scenario::Scenario& s, const std::string& protocol) {
  Verdict v;
  scenario::RunOptions o;
  o.protocol = protocol;
  o.routine_events = false;  // a verdict reads the summary and the liveness checks only
  scenario::RunResult run;
  try {
    run = scenario::run(s, o);
  } catch (const NoProgress& e) {
    v.kind = "no-progress";
    v.message = e.what();
    v.at_us = e.at().time_since_epoch().count();
    return v;
  } catch (const scenario::InputError& e) {
    v.kind = "refused";
    v.message = e.what();
    return v;
  }
  v.events = run.events_executed;
  const auto summary = metrics::summarize(s, run);
  for (const auto& z : summary.zombies) {
    ++v.zombies[z.cause];
    v.longest_zombie_us = std::max(v.longest_zombie_us, ((z.to ? *z.to : run.end) - z.from).count());
  }
  v.generations_reissued = summary.generations_reissued;
  const auto liveness = metrics::check_liveness(s, run);
  v.liveness_skipped = liveness.skipped;
  v.stranded = static_cast<int>(liveness.stranded.size());
  if (liveness.settled_at && liveness.quiet_from)
    v.settle_us = std::max<std::int64_t>(0, (*liveness.settled_at - *liveness.quiet_from).count());
  std::optional<metrics::Finding> first;
  if (summary.violation) first = summary.violation;
  if (liveness.finding && (!first || liveness.finding->at < first->at)) first = liveness.finding;
  if (first) {
    if (first->invariant == "liveness") v.shape = liveness.shape;
    v.kind = first->invariant;
    v.message = metrics::describe(*first);
    v.at_us = first->at.time_since_epoch().count();
  }
  return v;
}

Verdict judge_text(const std::string& yaml, const std::string& file, const std::string& protocol) {
  try {
    return judge(scenario::load_text(yaml, file), protocol);
  } catch (const scenario::InputError& e) {
    Verdict v;
    v.kind = "refused";
    v.message = e.what();
    return v;
  }
}

}  // namespace rsim::swarm
