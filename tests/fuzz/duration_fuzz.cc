// Fuzz target: Go-syntax durations (ParseDuration). Property: a parsed
// duration formats (FormatDuration, Go's String()) to text that parses back
// to the same duration.
#include <chrono>
#include <string>

#include "core/duration.h"
#include "fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  std::chrono::nanoseconds d{};
  if (!dagu::ParseDuration(text, &d).ok()) return 0;
  std::string formatted = dagu::FormatDuration(d);
  std::chrono::nanoseconds again{};
  dagu::Status s = dagu::ParseDuration(formatted, &again);
  FUZZ_CHECK(s.ok(), "\"%s\" formats as \"%s\", which does not parse: %s", text.c_str(), formatted.c_str(),
             s.ToString().c_str());
  FUZZ_CHECK(again == d, "\"%s\" is %lld ns, formats as \"%s\", which parses as %lld ns", text.c_str(),
             static_cast<long long>(d.count()), formatted.c_str(), static_cast<long long>(again.count()));
  return 0;
}
