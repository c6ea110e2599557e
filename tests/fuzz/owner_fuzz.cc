// Fuzz target: the scheduler lock's owner record (DecodeLockOwner).
// Property: a record that decodes encodes to one that decodes to the same
// holder, and encoding is then stable.
#include <string>
#include <string_view>

#include "fuzz_check.h"
#include "store/scheduler_lock.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  dagu::LockOwner owner;
  if (!dagu::DecodeLockOwner(bytes, &owner).ok()) return 0;
  std::string once = dagu::EncodeLockOwner(owner);
  dagu::LockOwner again;
  dagu::Status s = dagu::DecodeLockOwner(once, &again);
  FUZZ_CHECK(s.ok(), "an encoded owner record does not decode: %s", s.ToString().c_str());
  FUZZ_CHECK(again.SameAcquisition(owner) && again.counter == owner.counter && again.pid == owner.pid &&
                 again.host == owner.host && again.stale_threshold_ms == owner.stale_threshold_ms,
             "the owner record changed in a round trip: %s", once.c_str());
  FUZZ_CHECK(dagu::EncodeLockOwner(again) == once, "encoding is not stable: %s", once.c_str());
  return 0;
}
