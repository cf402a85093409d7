// The structure of a topology and its sub-topology graph (Boost.Graph).
// The configured counts are in configured_topology.cpp.
#include "protocols/streams/topology.hpp"

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/depth_first_search.hpp>
#include <boost/graph/topological_sort.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cassert>
#include <iterator>
#include <set>

namespace rsim::protocols::streams {

namespace {

// An edge runs from a writer of a repartition topic to a reader of it; it
// remembers the topic and where the reader lists it, to report a cycle.
struct Dependency {
  std::string topic;
  std::size_t source_item = 0;
};

// vecS everywhere: vertices are sub-topology indices and out-edges keep
// insertion order, so the depth-first search, and any cycle it reports, is
// the same on every run and platform.
using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::bidirectionalS, boost::no_property, Dependency>;
using Vertex = boost::graph_traits<Graph>::vertex_descriptor;
using Edge = boost::graph_traits<Graph>::edge_descriptor;

// Records the tree edge into each vertex and the first back edge, which
// closes a cycle: the cycle is the tree path from the back edge's target to
// its source, plus the back edge.
class CycleFinder : public boost::default_dfs_visitor {
 public:
  CycleFinder(std::vector<std::optional<Edge>>& tree_edge_into, std::optional<Edge>& back)
      : tree_edge_into_(&tree_edge_into), back_(&back) {}
  void tree_edge(Edge e, const Graph& g) const { (*tree_edge_into_)[boost::target(e, g)] = e; }
  void back_edge(Edge e, const Graph&) const {
    if (!*back_) *back_ = e;
  }

 private:
  std::vector<std::optional<Edge>>* tree_edge_into_;
  std::optional<Edge>* back_;
};

[[noreturn]] void fail(std::size_t subtopology, Field field, std::size_t item, const std::string& message) {
  throw TopologyError(subtopology, field, item, message);
}

void check_unique_ids(const std::vector<SubtopologySpec>& subs) {
  std::set<std::string> ids;
  for (std::size_t i = 0; i < subs.size(); ++i)
    if (!ids.insert(subs[i].id).second) fail(i, Field::Id, 0, fmt::format("subtopology '{}' is declared twice", subs[i].id));
}

// Every writer of one repartition topic must agree on an enforced count.
std::map<std::string, std::optional<int>> collect_repartition_topics(const std::vector<SubtopologySpec>& subs) {
  std::map<std::string, std::optional<int>> out;
  std::map<std::string, std::string> enforced_by;
  for (std::size_t i = 0; i < subs.size(); ++i) {
    for (std::size_t j = 0; j < subs[i].repartition_sinks.size(); ++j) {
      const RepartitionTopic& r = subs[i].repartition_sinks[j];
      auto& count = out[r.name];
      if (!r.partitions) continue;
      if (count && *count != *r.partitions)
        fail(i, Field::RepartitionSink, j,
             fmt::format("repartition topic '{}' has {} partitions here but {} in subtopology '{}'", r.name, *r.partitions, *count, enforced_by[r.name]));
      count = r.partitions;
      enforced_by[r.name] = subs[i].id;
    }
  }
  return out;
}

// A sub-topology reads something (Kafka's ChangelogTopics: "No source topics
// found for subtopology"), and each co-partition group names its own sources
// (in Kafka a group holds indices into the sub-topology's source lists).
void check_sources_and_groups(const std::vector<SubtopologySpec>& subs) {
  for (std::size_t i = 0; i < subs.size(); ++i) {
    const auto& st = subs[i];
    if (st.source_topics.empty()) fail(i, Field::Source, 0, fmt::format("subtopology '{}' reads no topic", st.id));
    for (std::size_t g = 0; g < st.copartition_groups.size(); ++g) {
      const auto& group = st.copartition_groups[g];
      if (group.size() < 2) fail(i, Field::Copartition, g, "a co-partition group names at least two topics");
      for (const auto& topic : group)
        if (std::find(st.source_topics.begin(), st.source_topics.end(), topic) == st.source_topics.end())
          fail(i, Field::Copartition, g, fmt::format("co-partition group names '{}', which subtopology '{}' does not read", topic, st.id));
    }
  }
}

Graph dependency_graph(const std::vector<SubtopologySpec>& subs) {
  Graph g(subs.size());
  for (std::size_t reader = 0; reader < subs.size(); ++reader)
    for (std::size_t j = 0; j < subs[reader].source_topics.size(); ++j)
      for (std::size_t writer = 0; writer < subs.size(); ++writer)
        for (const auto& sink : subs[writer].repartition_sinks)
          if (sink.name == subs[reader].source_topics[j]) boost::add_edge(writer, reader, Dependency{sink.name, j}, g);
  return g;
}

// "0 -[a]-> 1 -[b]-> 0": the cycle a back edge closes, along the DFS tree.
std::string describe_cycle(const Graph& g, const std::vector<SubtopologySpec>& subs,
                           const std::vector<std::optional<Edge>>& tree_edge_into, Edge back) {
  std::vector<Edge> path{back};
  Vertex v = boost::source(back, g);
  const Vertex start = boost::target(back, g);
  for (std::size_t steps = 0; v != start; ++steps) {
    assert(steps < subs.size() && tree_edge_into[v]);  // the tree path from start reaches v
    path.push_back(*tree_edge_into[v]);
    v = boost::source(*tree_edge_into[v], g);
  }
  std::reverse(path.begin(), path.end());
  std::string text = fmt::format("'{}'", subs[start].id);
  for (const Edge& e : path) text += fmt::format(" -[{}]-> '{}'", g[e].topic, subs[boost::target(e, g)].id);
  return text;
}

// Kafka Streams' sub-topologies form a DAG along repartition topics; a cycle
// would leave its repartition topics' counts undefined (RepartitionTopics
// loops "without making any progress").
void check_acyclic(const Graph& g, const std::vector<SubtopologySpec>& subs) {
  std::vector<std::optional<Edge>> tree_edge_into(subs.size());
  std::optional<Edge> back;
  std::vector<boost::default_color_type> colors(subs.size());
  boost::depth_first_search(g, CycleFinder(tree_edge_into, back),
                            boost::make_iterator_property_map(colors.begin(), boost::get(boost::vertex_index, g)));
  if (!back) return;
  const Vertex reader = boost::target(*back, g);
  fail(reader, Field::Source, g[*back].source_item,
       fmt::format("repartition topics form a cycle: {}", describe_cycle(g, subs, tree_edge_into, *back)));
}

}  // namespace

Topology Topology::build(std::vector<SubtopologySpec> subtopologies) {
  check_unique_ids(subtopologies);
  check_sources_and_groups(subtopologies);
  Topology t;
  t.repartition_ = collect_repartition_topics(subtopologies);
  const Graph g = dependency_graph(subtopologies);
  check_acyclic(g, subtopologies);
  // topological_sort emits in reverse: readers before writers.
  boost::topological_sort(g, std::back_inserter(t.order_));
  std::reverse(t.order_.begin(), t.order_.end());
  assert(t.order_.size() == subtopologies.size());
  t.subtopologies_ = std::move(subtopologies);
  return t;
}

std::vector<std::size_t> Topology::writers_of(const std::string& topic) const {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < subtopologies_.size(); ++i)
    for (const auto& sink : subtopologies_[i].repartition_sinks)
      if (sink.name == topic) out.push_back(i);
  return out;
}

std::vector<std::string> Topology::external_source_topics() const {
  std::set<std::string> out;
  for (const auto& st : subtopologies_)
    for (const auto& topic : st.source_topics)
      if (!is_repartition_topic(topic)) out.insert(topic);
  return {out.begin(), out.end()};
}

std::string task_id(const std::string& subtopology, int partition) { return fmt::format("{}_{}", subtopology, partition); }

std::string changelog_topic(const std::string& store) { return store + "-changelog"; }

}  // namespace rsim::protocols::streams
