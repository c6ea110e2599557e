// DagFiles: the DAG definitions as the API names them -- by `fileName`, the
// file's base name without .yaml/.yml (Dagu's convention) -- with their load
// errors and suspend flags.
//
// LOAD CACHE (docs/web.md, "At scale"). Every call looks at the files as they
// are now: each file is stat'ed (and its suspend flag) on every call, and a
// file is parsed again whenever its version (size, mtime, inode:
// SameFileVersion) differs from the version it was parsed at, so an edit by
// any process or host shows in the next request. Only the parse is reused.
// A version whose mtime is less than kRacyWindow old when it is parsed is not
// kept (two writes within one timestamp tick would look like one version),
// and a change of the base config's version drops every kept parse. Memory
// is one parsed DAG per file (and per load kind), never more; a listing's
// parse (metadata_only) keeps only ListingFields.
//
// LISTING CACHE. After WatchForChanges(), List/ListShared reuse their last
// listing (no stat at all) while a DirTracker of the DAG and suspend-flag
// directories says nothing changed in them since it was made, and the base
// config's version is the same. The tracker counts every change completed
// before the request began (core/dir_tracker.h), so this keeps the rule
// above; where it cannot (a directory missing or on a network file system,
// no inotify), and for a listing that holds a symbolic link (its target may
// change without an event), every call stats as above.
//
// Thread-safe: the cache has its own mutex, never held across a stat or load.
//
// What the API may read and show:
// - only regular files: a FIFO, socket, device or directory named *.yaml is
//   not opened (it could block a server thread) and is listed with an error;
// - a symbolic link only when it resolves to a regular file inside the DAG
//   directory; one that leaves it is refused the same way (it would let the
//   API read any file the server can);
// - errors name the file by its name in the DAG directory, never by its
//   server path, and never quote content that may not be a DAG's: a quoted
//   key or value that is not a short plain name shows as "...".
#pragma once

#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "core/dir_tracker.h"
#include "core/file_system.h"
#include "core/heap_optional.h"
#include "core/status.h"
#include "dag/dag.h"
#include "dag/dag_loader.h"

namespace dagu::web {

struct DagFile {
  std::string file_name;            // "etl" for <dags>/etl.yaml
  std::string path;                 // absolute
  HeapOptional<Dag> dag;            // set when it loaded (on the heap: thousands are kept)
  std::vector<std::string> errors;  // load errors ("etl.yaml:line:col: key: message"), see ApiErrorText
  bool suspended = false;
  // What parsed of a file that did not load (Dagu 1.30.2 shows such a DAG
  // with its build errors); unset when `dag` is set.
  HeapOptional<Dag> partial;

  // The DAG's name: name: from the file, else the file name.
  std::string DagName() const { return dag ? dag->name : file_name; }
  // `dag`, else `partial`, else null.
  const Dag* AnyDag() const { return dag ? &*dag : partial ? &*partial : nullptr; }
};

// One listing of the DAG directory (DagFiles::ListSnapshot): its files by
// file name. Never changes once handed out; while the listing cache holds,
// every call hands out the same object, so what is derived from it (the DAG
// list's sort orders, web/dag_list_order.h) can be kept by its identity.
struct DagListing {
  std::vector<std::shared_ptr<const DagFile>> files;
};

class DagFiles {
 public:
  // `fs` must outlive this. `options.fs` is set to `fs`.
  DagFiles(FileSystem* fs, std::string dags_dir, std::string suspend_flags_dir, LoadDagOptions options);

  // Every *.yaml / *.yml file directly in the DAG directory, by file name.
  // `metadata_only` loads as the scheduler does (step problems are warnings)
  // and keeps of each DAG only what a listing shows (ListingFields): no
  // steps, handlers, env or text. Find() gives the whole DAG.
  Status List(bool metadata_only, std::vector<DagFile>* out) const;
  // As List, sharing the cached parses (no copy of each DAG): what a listing
  // of thousands of files uses. The objects never change once handed out.
  // A set `cancel` is checked between files: Aborted, with nothing in
  // `out`, once it is true (the server's warm-up, web/warm_up.h).
  Status ListShared(bool metadata_only, std::vector<std::shared_ptr<const DagFile>>* out,
                    const std::atomic<bool>* cancel = nullptr) const;
  // As ListShared, without copying the list: the listing cache's own object
  // while it holds (the same pointer until something changes), else a new
  // one per call. Never null on success.
  Status ListSnapshot(bool metadata_only, std::shared_ptr<const DagListing>* out,
                      const std::atomic<bool>* cancel = nullptr) const;

  // Turns the listing cache on (see the header comment). Only for the real
  // file system: a test's FileSystem changes nothing inotify sees. Call
  // before the object is shared between threads.
  void WatchForChanges();

  // A parse of a file whose mtime is younger than this is not reused.
  static constexpr std::chrono::seconds kRacyWindow{2};
  // The file of `file_name` ("etl" or "etl.yaml"). InvalidArgument for a
  // name that is not a plain file name; NotFound when there is no such file.
  Status Find(const std::string& file_name, DagFile* out) const;
  // As Find, sharing the kept parse (no copy of the DAG).
  Status FindShared(const std::string& file_name, std::shared_ptr<const DagFile>* out) const;
  // The file whose DAG is named `dag_name` (a file of that name first).
  Status FindByDagName(const std::string& dag_name, DagFile* out) const;
  // Creates or removes the suspend flag (Dagu's <suspend dir>/<stem>.suspend).
  Status SetSuspended(const DagFile& file, bool suspended) const;

  // Loads YAML text as the file `<file_name>.yaml` of the DAG directory
  // would load (nothing is written).
  DagFile LoadText(const std::string& file_name, const std::string& yaml) const;
  // The file's text.
  Status ReadSpec(const DagFile& file, std::string* yaml) const;
  // Replaces the file's text (atomically).
  Status WriteSpec(const DagFile& file, const std::string& yaml) const;
  // Writes <dags>/<file_name>.yaml; AlreadyExists when a .yaml or .yml of that
  // name exists, InvalidArgument for a name ValidateDagFileName refuses.
  Status Create(const std::string& file_name, const std::string& yaml) const;
  // Moves the file (and its suspend flag) to <new_file_name>.yaml;
  // AlreadyExists when that exists.
  Status Rename(const DagFile& file, const std::string& new_file_name) const;
  // Removes the file and its suspend flag.
  Status Remove(const DagFile& file) const;

 private:
  DagFile Load(const std::string& file_name, const std::string& path, bool metadata_only) const;
  // Load through the cache (see the header comment).
  // `plain` is set false when the entry is not a regular file (a link).
  std::shared_ptr<const DagFile> LoadShared(const std::string& file_name, const std::string& path,
                                            bool metadata_only, bool* plain) const;
  std::string FlagPath(const std::string& path) const;
  // Drops every kept parse when the base config's version changed.
  void CheckBaseConfig() const;

  struct Cached {
    FileInfo version;
    std::shared_ptr<const DagFile> file;
  };

  FileSystem* fs_;
  std::string dags_dir_;
  std::string suspend_dir_;
  LoadDagOptions options_;
  mutable std::mutex cache_mu_;
  mutable std::map<std::string, Cached> cache_;  // by path, "\n" + "m" for a metadata-only load
  mutable std::optional<FileInfo> base_version_;  // of options_.base_config when the cache was filled
  // The listing cache, by metadata_only (guarded by cache_mu_).
  struct Listing {
    uint64_t dags_gen = 0, suspend_gen = 0;  // DirTracker numbers it was made at
    std::shared_ptr<const DagListing> files;
  };
  std::unique_ptr<DirTracker> tracker_;
  mutable std::optional<Listing> listings_[2];
};

// What List(metadata_only) keeps of a DAG: its DagHeader (name, schedules,
// params, queue, max_active_runs, ...), description, tags and group; the
// rest is left default. A kept parse of a small DAG is ~1 KB this way
// instead of ~12 KB (10,000 DAG files: docs/web.md, "At scale").
Dag ListingFields(Dag&& dag);

// OK when `name` is a plain file name (no '/', not starting with '.', at most
// 255 bytes of [A-Za-z0-9_.-]); InvalidArgument naming it otherwise.
Status ValidateDagFileName(const std::string& name);

// The API's text of a load error: "<file name>:line:col: key: message", with
// a key or quoted value that is not a short plain name ([A-Za-z0-9_.[]-], at
// most 64 bytes) replaced by "...".
std::string ApiErrorText(const DagError& error, const std::string& file_name);

// OK when the entry `name` of directory `dir` may be read as a DAG file: a
// regular file, or a symbolic link to a regular file inside `dir`.
// PermissionDenied saying why (without the link's target) otherwise;
// NotFound when it does not exist. Uses lstat/realpath, never opens it.
Status CheckDagFileEntry(const std::string& dir, const std::string& name);

}  // namespace dagu::web
