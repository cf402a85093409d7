// A member's subscribed topic names (MemberMetadata's
// subscribedTopicNames; a classic JoinGroup's subscription), shared: a run
// gives members subscribing alike one list, which their requests, the
// leader's snapshot and the assignors carry, and the consumer coordinator
// interns what it is sent. A group on 1,000 topics otherwise copied and
// compared 1,000 names per member at every rebalance (issue 16). A value
// all the same: equal by content, the pointer first.
#pragma once

#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

namespace rsim::protocols {

class TopicNames {
 public:
  using List = std::vector<std::string>;

  TopicNames() = default;
  TopicNames(List names) : list_(std::make_shared<const List>(std::move(names))) {}  // NOLINT: a value
  TopicNames(std::initializer_list<std::string> names) : TopicNames(List(names)) {}
  explicit TopicNames(std::shared_ptr<const List> list) : list_(std::move(list)) {}

  const List& list() const { return list_ != nullptr ? *list_ : none(); }
  operator const List&() const { return list(); }  // NOLINT: reads as the list it holds
  // The shared list; null only for a default-constructed (empty) one.
  const std::shared_ptr<const List>& shared() const { return list_; }

  List::const_iterator begin() const { return list().begin(); }
  List::const_iterator end() const { return list().end(); }
  std::size_t size() const { return list().size(); }
  bool empty() const { return list().empty(); }

  friend bool operator==(const TopicNames& a, const TopicNames& b) {
    return a.list_ == b.list_ || a.list() == b.list();
  }
  friend bool operator==(const TopicNames& a, const List& b) { return a.list() == b; }

 private:
  static const List& none() {
    static const List empty;
    return empty;
  }
  std::shared_ptr<const List> list_;
};

}  // namespace rsim::protocols
