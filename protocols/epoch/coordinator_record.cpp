#include "protocols/epoch/coordinator_record.hpp"

#include <cassert>
#include <ostream>

namespace rsim::protocols::epoch {

namespace {

// ByteUtils.sizeOfVarint: the zig-zag encoded int's unsigned varint.
std::size_t varint_bytes(std::int64_t v) {
  const auto zigzag = static_cast<std::uint64_t>((v << 1) ^ (v >> 63));
  return RecordWriter::uvarint_bytes(zigzag);
}

}  // namespace

std::size_t RecordWriter::uvarint_bytes(std::uint64_t v) {
  std::size_t n = 1;
  while (v >= 0x80) {
    v >>= 7;
    ++n;
  }
  return n;
}

// attributes (1), timestamp delta (0), offset delta, key length and key,
// value length (-1 for a tombstone) and value, header count (0); the body's
// length in front.
std::size_t bytes_in_batch(const CoordinatorRecord& r, int offset_delta) {
  std::size_t body = 1 + varint_bytes(0) + varint_bytes(offset_delta);
  body += varint_bytes(static_cast<std::int64_t>(r.key_bytes)) + r.key_bytes;
  body += r.value_bytes ? varint_bytes(static_cast<std::int64_t>(*r.value_bytes)) + *r.value_bytes : varint_bytes(-1);
  body += varint_bytes(0);
  return varint_bytes(static_cast<std::int64_t>(body)) + body;
}

std::size_t batch_bytes(const std::vector<CoordinatorRecord>& records) {
  std::size_t total = kRecordBatchOverhead;
  for (std::size_t i = 0; i < records.size(); ++i) total += bytes_in_batch(records[i], static_cast<int>(i));
  return total;
}

void RecordWriter::key(std::string_view name, int type) {
  if (open_) close_part();
  current_ = CoordinatorRecord{std::string(name), type, 0, std::nullopt, {}, {}};
  open_ = true;
  in_value_ = false;
  bytes_ = 2;  // the key's version: the record type
  levels_ = {Level{json_ ? &current_.key : nullptr, 0}};
  if (json_) current_.key = nlohmann::ordered_json::object();
}

void RecordWriter::value() {
  assert(open_ && !in_value_);
  current_.key_bytes = bytes_;  // non-flexible: no tagged fields
  in_value_ = true;
  bytes_ = 2;  // the value's version
  levels_ = {Level{json_ ? &current_.value : nullptr, 0}};
  if (json_) current_.value = nlohmann::ordered_json::object();
}

void RecordWriter::tombstone() {
  assert(open_ && !in_value_);
  current_.key_bytes = bytes_;
  current_.value_bytes.reset();
  current_.value = nullptr;
  done_.push_back(std::move(current_));
  open_ = false;
}

void RecordWriter::group_key(std::string_view name, int type, std::string_view group_id) {
  key(name, type);
  string("GroupId", group_id);
}

void RecordWriter::member_key(std::string_view name, int type, std::string_view group_id, std::string_view member_id) {
  group_key(name, type, group_id);
  string("MemberId", member_id);
}

void RecordWriter::member_tombstones(const MemberRecordTypes& t, std::string_view group_id, std::string_view member_id) {
  member_key(t.current, t.current_type, group_id, member_id);
  tombstone();
  member_key(t.target, t.target_type, group_id, member_id);
  tombstone();
  member_key(t.metadata, t.metadata_type, group_id, member_id);
  tombstone();
}

// Ends the record being written: a value's top-level tagged fields count.
void RecordWriter::close_part() {
  if (!open_) return;
  assert(in_value_);
  bytes_ += uvarint_bytes(levels_.front().tagged);
  current_.value_bytes = bytes_;
  done_.push_back(std::move(current_));
  open_ = false;
}

std::vector<CoordinatorRecord> RecordWriter::take() {
  close_part();
  return std::move(done_);
}

void RecordWriter::put_json(std::string_view field, nlohmann::ordered_json v) {
  nlohmann::ordered_json* into = levels_.back().json;
  if (into->is_array())
    into->push_back(std::move(v));
  else
    (*into)[std::string(field)] = std::move(v);
}

void RecordWriter::fixed(std::string_view field, std::size_t bytes, std::int64_t v) {
  bytes_ += bytes;
  put(field, v);
}

void RecordWriter::uuid(std::string_view field, std::string_view shown) {
  bytes_ += 16;
  put(field, shown);
}

void RecordWriter::length(std::size_t n) { bytes_ += flexible() ? uvarint_bytes(n + 1) : 2; }

void RecordWriter::string(std::string_view field, std::string_view v) {
  length(v.size());
  bytes_ += v.size();
  put(field, v);
}

void RecordWriter::nullable_string(std::string_view field, const std::optional<std::string>& v) {
  if (v) return string(field, *v);
  bytes_ += flexible() ? 1 : 2;  // length 0 (compact) or -1
  put(field, nullptr);
}

void RecordWriter::strings(std::string_view field, const std::vector<std::string>& v) {
  length(v.size());
  for (const auto& s : v) bytes_ += (flexible() ? uvarint_bytes(s.size() + 1) : 2) + s.size();
  put(field, v);
}

void RecordWriter::int32s(std::string_view field, const std::vector<int>& v) {
  length(v.size());
  bytes_ += 4 * v.size();
  put(field, v);
}

void RecordWriter::int16s(std::string_view field, const std::vector<int>& v) {
  length(v.size());
  bytes_ += 2 * v.size();
  put(field, v);
}

void RecordWriter::begin_array(std::string_view field, std::size_t n) {
  length(n);
  nlohmann::ordered_json* into = nullptr;
  if (json_) {
    put(field, nlohmann::ordered_json::array());
    nlohmann::ordered_json& parent = *levels_.back().json;
    into = &parent[std::string(field)];
  }
  levels_.push_back(Level{into, 0});
}

void RecordWriter::end_array() { levels_.pop_back(); }

void RecordWriter::begin_struct(const std::string_view* field) {
  nlohmann::ordered_json* into = nullptr;
  if (json_) {
    nlohmann::ordered_json& parent = *levels_.back().json;
    if (parent.is_array()) {
      parent.push_back(nlohmann::ordered_json::object());
      into = &parent.back();
    } else {
      into = &(parent[std::string(*field)] = nlohmann::ordered_json::object());
    }
  }
  levels_.push_back(Level{into, 0});
}

void RecordWriter::end_struct() {
  if (flexible()) bytes_ += uvarint_bytes(levels_.back().tagged);
  levels_.pop_back();
}

void RecordsOut::write(std::int64_t at_us, std::uint64_t operation, const std::vector<CoordinatorRecord>& records) {
  if (operation_ != operation) {
    if (operation_) ++batch_;
    operation_ = operation;
    offset_delta_ = 0;
  }
  for (const auto& r : records) {
    nlohmann::ordered_json line;
    line["time_us"] = at_us;
    line["batch"] = batch_;
    line["offset"] = offset_++;
    line["record"] = r.name;
    line["type"] = r.type;
    line["key"] = r.key;
    line["value"] = r.value_bytes ? r.value : nlohmann::ordered_json(nullptr);
    line["bytes"] = bytes_in_batch(r, offset_delta_++);
    out_ << line.dump() << '\n';
  }
}

}  // namespace rsim::protocols::epoch

namespace rsim::protocols::epoch {

int member_state_value(MemberState s) {
  switch (s) {
    case MemberState::Stable:
      return 1;
    case MemberState::UnrevokedPartitions:
      return 2;
    case MemberState::UnreleasedPartitions:
      return 3;
  }
  return 127;  // UNKNOWN
}

// FNV-1a over "topic:count;" in topic order.
std::int64_t metadata_hash(const std::map<std::string, int>& partitions) {
  std::uint64_t h = 14695981039346656037ull;
  auto mix = [&h](std::string_view text) {
    for (unsigned char c : text) h = (h ^ c) * 1099511628211ull;
  };
  for (const auto& [topic, count] : partitions) {
    mix(topic);
    mix(":" + std::to_string(count) + ";");
  }
  return static_cast<std::int64_t>(h);
}

}  // namespace rsim::protocols::epoch
