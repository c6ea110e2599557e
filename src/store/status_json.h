// JSON for the run status record (run_status.h), both ways, exactly as Dagu
// 1.30.2 writes it: Go struct key order, omitted optional keys, integer codes.
// Reading is tolerant like Go's encoding/json: unknown keys are kept in
// `extra`, null counts as absent. A known key with the wrong JSON type fails
// the line (Go rejects it too), with an error that names the key.
//
// status.jsonl holds one record per line; readers keep the last line that
// parses and skip the rest (a torn last line from a crash is normal).
#pragma once

#include <string>
#include <string_view>

#include "core/status.h"
#include "store/run_status.h"

namespace dagu {

Json RunRecordToJson(const RunRecord& record);
Status RunRecordFromJson(const Json& json, RunRecord* record);

Json NodeRecordToJson(const NodeRecord& node);
Status NodeRecordFromJson(const Json& json, NodeRecord* node);

// One line of status.jsonl, without the trailing newline.
std::string SerializeRunRecord(const RunRecord& record);
// Parses one line. Corruption (naming the key or the JSON error) when it fails.
Status ParseRunRecord(std::string_view line, RunRecord* record);

// Parses a whole status.jsonl: the last line that parses wins. Corruption
// naming `path` when no line parses (an empty file included). When
// `skipped_lines` is given it receives the number of lines that did not parse.
Status ParseStatusFile(std::string_view contents, const std::string& path, RunRecord* record,
                       int* skipped_lines = nullptr);

}  // namespace dagu
