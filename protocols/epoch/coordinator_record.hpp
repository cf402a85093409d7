// A group's records as Kafka writes them to __consumer_offsets: each a key
// (the record type as its version, then non-flexible fields) and a value
// (version 0, flexible fields) or none (a tombstone), sized with Kafka's
// encodings (ByteBufferAccessor / MessageSizeAccumulator: compact strings
// and arrays, tagged fields, nullable structs' marker byte) and framed as in
// a v2 record batch (DefaultRecord: varint lengths, 61-byte batch header).
// The protocols describe their records field by field with RecordWriter;
// the same description gives the sizes and, when asked, the JSON.
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rsim::protocols::epoch {

struct CoordinatorRecord {
  std::string name;  // the record's name without Key/Value: "StreamsGroupMemberMetadata"
  int type = 0;      // the key's version, Kafka's CoordinatorRecordType
  std::size_t key_bytes = 0;
  std::optional<std::size_t> value_bytes;  // none: a tombstone
  nlohmann::ordered_json key, value;       // only when written with JSON
};

// message.max.bytes, the broker's default for __consumer_offsets' largest
// record batch ("1 MB").
inline constexpr std::size_t kDefaultMaxBatchBytes = 1048588;
// Kafka's RecordBatch header (DefaultRecordBatch.RECORD_BATCH_OVERHEAD).
inline constexpr std::size_t kRecordBatchOverhead = 61;
// A record's bytes inside a batch: DefaultRecord.sizeInBytes with the
// batch's timestamp (delta 0) and no headers.
std::size_t bytes_in_batch(const CoordinatorRecord& r, int offset_delta);
// A batch of `records` in this order.
std::size_t batch_bytes(const std::vector<CoordinatorRecord>& records);

class RecordWriter {
 public:
  explicit RecordWriter(bool with_json) : json_(with_json) {}

  // A new record: its key's fields follow, then value() and its fields, or
  // tombstone().
  void key(std::string_view name, int type);
  void value();
  void tombstone();
  std::vector<CoordinatorRecord> take();
  // The two key shapes of a group's records: the group's, and a member's.
  void group_key(std::string_view name, int type, std::string_view group_id);
  void member_key(std::string_view name, int type, std::string_view group_id, std::string_view member_id);
  // A member's removal: its current assignment, target and metadata records
  // tombstoned, in that order (Kafka's removeMember).
  struct MemberRecordTypes {
    std::string_view current, target, metadata;  // record names
    int current_type, target_type, metadata_type;
  };
  void member_tombstones(const MemberRecordTypes& types, std::string_view group_id, std::string_view member_id);

  void int8(std::string_view field, std::int64_t v) { fixed(field, 1, v); }
  void int16(std::string_view field, std::int64_t v) { fixed(field, 2, v); }
  void uint16(std::string_view field, std::int64_t v) { fixed(field, 2, v); }
  void int32(std::string_view field, std::int64_t v) { fixed(field, 4, v); }
  void int64(std::string_view field, std::int64_t v) { fixed(field, 8, v); }
  // A topic id: 16 bytes; the JSON shows `shown` (the simulator has names,
  // not UUIDs).
  void uuid(std::string_view field, std::string_view shown);
  void string(std::string_view field, std::string_view v);
  void nullable_string(std::string_view field, const std::optional<std::string>& v);
  void strings(std::string_view field, const std::vector<std::string>& v);
  void int32s(std::string_view field, const std::vector<int>& v);
  void int16s(std::string_view field, const std::vector<int>& v);

  // An array of structs: `each(item)` writes one element's fields.
  template <class Range, class Each>
  void structs(std::string_view field, const Range& items, Each&& each) {
    begin_array(field, static_cast<std::size_t>(std::distance(std::begin(items), std::end(items))));
    for (const auto& item : items) {
      begin_struct(nullptr);
      each(item);
      end_struct();
    }
    end_array();
  }
  // A nullable struct (a marker byte in flexible versions).
  template <class Fields>
  void nullable_struct(std::string_view field, bool present, Fields&& fields) {
    bytes_ += 1;
    if (!present) return put(field, nullptr);
    begin_struct(&field);
    fields();
    end_struct();
  }
  // A tagged field, written only when it differs from its default.
  template <class Body>
  void tagged(int tag, Body&& body) {
    const std::size_t before = bytes_;
    body();
    const std::size_t size = bytes_ - before;
    bytes_ += uvarint_bytes(static_cast<std::uint64_t>(tag)) + uvarint_bytes(size);
    ++levels_.back().tagged;
  }

  static std::size_t uvarint_bytes(std::uint64_t v);

 private:
  struct Level {
    nlohmann::ordered_json* json = nullptr;  // the object or array written into
    std::size_t tagged = 0;
  };
  bool flexible() const { return in_value_; }
  void fixed(std::string_view field, std::size_t bytes, std::int64_t v);
  // The field's JSON, built only when the writer writes JSON (sizing the
  // records, as every target computation does, builds none).
  template <class V>
  void put(std::string_view field, V&& v) {
    if (json_) put_json(field, nlohmann::ordered_json(std::forward<V>(v)));
  }
  void put_json(std::string_view field, nlohmann::ordered_json v);
  void length(std::size_t n);  // a string's or array's length prefix
  void begin_array(std::string_view field, std::size_t n);
  void end_array();
  void begin_struct(const std::string_view* field);
  void end_struct();
  void close_part();

  bool json_;
  bool in_value_ = false;
  std::size_t bytes_ = 0;
  std::vector<Level> levels_;
  std::vector<CoordinatorRecord> done_;
  CoordinatorRecord current_;
  bool open_ = false;
};

// The records of a group as JSON lines (`run --records FILE`): one line per
// record with the simulated time, the batch it was written in (the records of
// one coordinator operation, written atomically), its offset in the log, its
// key and value (null: a tombstone) and its bytes in the batch.
class RecordsOut {
 public:
  explicit RecordsOut(std::ostream& out) : out_(out) {}
  // The records one internal record became, written at `at_us` by the
  // coordinator operation numbered `operation`.
  void write(std::int64_t at_us, std::uint64_t operation, const std::vector<CoordinatorRecord>& records);

 private:
  std::ostream& out_;
  std::optional<std::uint64_t> operation_;
  std::uint64_t batch_ = 0, offset_ = 0;
  int offset_delta_ = 0;
};

}  // namespace rsim::protocols::epoch

#include "protocols/epoch/member_state.hpp"

#include <map>

namespace rsim::protocols::epoch {

// Kafka's MemberState values (STABLE 1, UNREVOKED_* 2, UNRELEASED_* 3), the
// State field of the current-assignment records.
int member_state_value(MemberState s);

// The MetadataHash field: a hash of the partition counts the group epoch was
// computed from. Kafka hashes topic ids, names and racks; the simulator has
// no ids, so this is its own deterministic hash (8 bytes either way).
std::int64_t metadata_hash(const std::map<std::string, int>& partitions);

}  // namespace rsim::protocols::epoch
