// Internal to src/dag: the keys each mapping of a DAG file accepts, in
// canonical snake_case with their legacy aliases, and the Dagu keys that are
// known but ignored or not supported here (docs/dag-format.md lists them).
#pragma once

#include "dag/yaml_fields.h"

namespace dagu::dag_internal {

const KeyTable& RootKeys();
const KeyTable& StepKeys();
const KeyTable& ScheduleKeys();
const KeyTable& HandlerOnKeys();
const KeyTable& SignalHandlingKeys();
const KeyTable& RetryPolicyKeys();
const KeyTable& RepeatPolicyKeys();
const KeyTable& ContinueOnKeys();
const KeyTable& ConditionKeys();
const KeyTable& OutputKeys();
const KeyTable& ExecutorKeys();
const KeyTable& LlmKeys();
const KeyTable& LlmThinkingKeys();
const KeyTable& LlmMessageKeys();
const KeyTable& SmtpKeys();
const KeyTable& SshKeys();
const KeyTable& ContainerKeys();
const KeyTable& MailOnKeys();
const KeyTable& MailKeys();
const KeyTable& SecretKeys();

}  // namespace dagu::dag_internal
