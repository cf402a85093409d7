// The side-by-side table of `compare`: one row per variant (protocol,
// assignor) on the same scenario and seed, ranked by total downtime.
#pragma once

#include "metrics/summary.hpp"

#include <ostream>
#include <string>
#include <vector>

namespace rsim::report {

struct VariantRow {
  std::string protocol;
  std::string assignor;
  metrics::Summary summary;
  std::string variant() const { return protocol + "/" + assignor; }
};

// Sorts by downtime.total, then stop-the-world, then rebalances, then name.
void rank(std::vector<VariantRow>& rows);

void write_compare_table(std::ostream& out, const std::string& scenario, std::uint64_t seed,
                         const std::vector<VariantRow>& rows);
void write_compare_markdown(std::ostream& out, const std::vector<VariantRow>& rows);
// Column names are `variant` and the contract's metric names; durations in seconds.
void write_compare_csv(std::ostream& out, const std::vector<VariantRow>& rows);
void write_compare_json(std::ostream& out, const std::string& scenario, std::uint64_t seed,
                        const std::vector<VariantRow>& rows);

}  // namespace rsim::report
