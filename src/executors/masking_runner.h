// MaskingRunner: a StepRunner decorator that masks every secret value
// (src/secrets/secrets.h) in what a step writes to its logs -- the .out and
// .err files and its stdout:/stderr: copies -- whatever runner runs it.
// The inner runner writes into FIFOs in a private directory; a pump thread
// masks the stream (holding back one byte less than the longest value, so a
// value split across writes is still masked) and appends it to the real
// files as it comes, so a log read while the step runs is masked too.
// The step's captured stdout (for output:) is left as is: the agent masks
// outputs where it stores them. The stderr tail and error are masked.
// Neither the runner nor the masker is owned; both must outlive the steps.
#pragma once

#include "executors/step_runner.h"
#include "secrets/secrets.h"

namespace dagu {

class MaskingRunner final : public StepRunner {
 public:
  MaskingRunner(StepRunner* inner, const Masker* masker) : inner_(inner), masker_(masker) {}

  std::unique_ptr<RunningStep> Start(const StepInvocation& invocation) override;
  int Capture(const std::string& shell, const std::string& command, const std::vector<std::string>& env,
              const std::string& working_dir, std::string* out) override {
    return inner_->Capture(shell, command, env, working_dir, out);
  }

 private:
  StepRunner* inner_;
  const Masker* masker_;
};

// Masks a stream written in pieces: Feed() returns what can be written now,
// Finish() the rest.
class StreamMasker {
 public:
  explicit StreamMasker(const Masker* masker) : masker_(masker) {}
  std::string Feed(std::string_view data);
  std::string Finish();

 private:
  const Masker* masker_;
  std::string pending_;
};

}  // namespace dagu
