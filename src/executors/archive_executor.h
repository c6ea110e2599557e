// ArchiveRunner: `type: archive` (Dagu 1.30.2's archive executor). The
// step's command is the operation: `create`, `extract` or `list` (any case);
// `config:` holds its settings (string values expanded as other executors'
// are). Archives are read and written with Debian's libarchive, loaded at
// first use (src/dynlib).
//
//   source            required: the file or folder to archive (create), the
//                     archive (extract, list)
//   destination       create: the archive (required unless dryRun); extract:
//                     the folder ("" = the working directory)
//   format            zip, tar, tar.gz/tgz, tar.bz2/tbz2/tbz, tar.xz/txz,
//                     tar.zst/tar.zstd; create infers it from the
//                     destination's extension, extract and list from the
//                     content. gz, bz2, xz, zst, lz4, 7z, rar are known but
//                     cannot be created (7z and rar can be read)
//   compressionLevel  gzip / bzip2 level (-1 = the default)
//   password          extract/list only (encrypted zip, rar)
//   overwrite         extract: replace existing files (default false: an
//                     existing file fails the step)
//   preservePaths     extract: keep folders (default true; false = flat)
//   stripComponents   extract: drop that many leading path elements (>= 0)
//   include, exclude  globs (doublestar syntax, archive_paths.h) on paths in
//                     the archive
//   dryRun            count without writing
//   followSymlinks    create: archive what links point to
//   verifyIntegrity   read every entry back (create: the new archive)
//   continueOnError   extract: record an entry's error and go on
//
// Relative paths are relative to the DAG's working directory (1.30.2's
// process directory), not the step's dir:. On success stdout gets 1.30.2's
// JSON summary (two-space indent, its field order); on failure the step
// fails with 1.30.2's error ("archive: source not found: stat x.tar: no
// such file or directory") and its exit code (2 configuration, 3 source
// not found, 4 destination, 5 format detection, 6 extraction, 7 creation,
// 10 permission, 12 corrupted archive, 1 other).
//
// Extraction never writes outside the destination: an entry whose path
// leaves it ("../x") or a symlink pointing outside it (or absolute) fails
// the step ("archive: corrupted archive: target \"../x\" escapes
// destination"), as in 1.30.2; an absolute entry path ("/etc/x") is
// extracted below the destination ("<dest>/etc/x").
#pragma once

#include "executors/step_runner.h"

namespace dagu {

class ArchiveRunner final : public StepRunner {
 public:
  std::unique_ptr<RunningStep> Start(const StepInvocation& invocation) override;
};

}  // namespace dagu
