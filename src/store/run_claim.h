// The claim on a run ID (docs/storage.md, "Exclusivity"; RunStore::CreateRun):
//
//     <dagRunsDir>/<dagDir>/dag-runs/.dagu_run_ids/<runId>
//
// created with O_CREAT|O_EXCL, so exactly one creator of an ID wins it.
//
// PENDING, THEN MADE. The creator writes the claim PENDING,
//
//     <path of the run directory>\npending\n
//
// makes that directory (mkdir, exclusive), and then rewrites the claim MADE,
//
//     <path of the run directory>\n
//
// which is also the form of every claim written before pending claims
// existed. A made claim blocks its ID for as long as it is there, whether or
// not its directory still is (Dagu's dequeue or retention may delete it).
//
// CLAIM REPAIR. A creator that dies between its claim and its mkdir (an OOM
// kill, a host crash, an EIO on the mkdir) leaves a pending claim without a
// directory. Once such a claim has not been touched for kClaimRepairAfter
// (its mtime against the reader's clock) it is ABANDONED: the ID counts as
// free, and the next creator ADOPTS the claim by making the very directory it
// names (then marks it made). Safe whatever the timing or the clocks: a claim
// is never removed or rewritten as pending by a creator or an adopter, and
// everyone who acts on it (its creator, however late, and any adopter on any
// host) makes the same path with an exclusive mkdir, so one of them gets the
// directory and the others AlreadyExists. The bound only keeps a live creator
// from being overtaken. A claim with no usable path (torn) is never adopted.
#pragma once

#include <chrono>
#include <string>

namespace dagu {

// How long a pending claim without its directory must be left untouched
// before it counts as abandoned.
inline constexpr std::chrono::seconds kClaimRepairAfter{30};

inline std::string PendingClaimText(const std::string& run_path) { return run_path + "\npending\n"; }
inline std::string MadeClaimText(const std::string& run_path) { return run_path + "\n"; }

// The run directory path a claim names, and whether it is pending. False
// when the text names no path (a torn claim).
inline bool ParseClaimText(const std::string& text, std::string* run_path, bool* pending) {
  const size_t eol = text.find('\n');
  std::string path = text.substr(0, eol);
  while (!path.empty() && path.back() == ' ') path.pop_back();
  if (path.empty()) return false;
  *pending = eol != std::string::npos && text.compare(eol + 1, std::string::npos, "pending\n") == 0;
  *run_path = std::move(path);
  return true;
}

}  // namespace dagu
