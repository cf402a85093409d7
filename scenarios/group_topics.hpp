// The group's resources: the partitions of the topics its members subscribe
// to (a Connect scenario's connectors count as topics). A topic's partitions
// join them when it gets its first subscriber, and grow with add-partitions;
// the trace says when (`resources-added`), so the metrics know what to count.
#pragma once

#include "protocols/classic/member.hpp"
#include "scenarios/scenario.hpp"
#include "sim/kernel.hpp"
#include "sim/trace.hpp"

#include <set>
#include <string>
#include <vector>

namespace rsim::scenario {

class GroupTopics {
 public:
  GroupTopics(const Scenario& s, const Kernel& kernel, Trace& trace);

  // The partition counts every member and coordinator reads; changed only
  // through this class, which counts each change in version().
  const protocols::classic::Metadata& metadata() const { return metadata_; }
  const std::uint64_t& version() const { return version_; }
  // The subscriptions of the members present at the start, without trace.
  void initial(const std::vector<std::string>& topics);
  void subscribed(const std::vector<std::string>& topics);
  void add_partitions(const std::string& topic, int count);
  // A topic comes into existence (Streams: create-topic).
  void create(const std::string& topic, int partitions) {
    metadata_[topic] = partitions;
    ++version_;
  }
  // Every resource of the group at the end, in declaration order.
  std::vector<std::string> resources() const;

 private:
  const Scenario& s_;
  const Kernel& kernel_;
  Trace& trace_;
  protocols::classic::Metadata metadata_;
  std::uint64_t version_ = 0;
  std::set<std::string> group_topics_;
};

}  // namespace rsim::scenario
