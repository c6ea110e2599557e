// Fuzz target: status.jsonl (ParseRunRecord for one line, ParseStatusFile for
// the whole input). Property: a record that parses serializes to a line that
// parses back and serializes the same.
#include <string>
#include <string_view>

#include "fuzz_check.h"
#include "store/status_json.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  dagu::RunRecord record;
  int skipped = 0;
  (void)dagu::ParseStatusFile(text, "/fuzz/status.jsonl", &record, &skipped);
  FUZZ_CHECK(skipped >= 0, "negative skipped count");
  std::string_view line = text.substr(0, text.find('\n'));
  if (!dagu::ParseRunRecord(line, &record).ok()) return 0;
  std::string once = dagu::SerializeRunRecord(record);
  dagu::RunRecord again;
  dagu::Status s = dagu::ParseRunRecord(once, &again);
  FUZZ_CHECK(s.ok(), "a serialized record does not parse: %s", s.ToString().c_str());
  std::string twice = dagu::SerializeRunRecord(again);
  FUZZ_CHECK(once == twice, "serialize(parse(serialize(r))) differs:\n%s\n%s", once.c_str(), twice.c_str());
  return 0;
}
