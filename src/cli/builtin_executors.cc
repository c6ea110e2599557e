#include "cli/builtin_executors.h"

namespace dagu {

BuiltinExecutors::BuiltinExecutors(const Config& /*config*/) {
  registry_.Register("http", &http_);
  registry_.Register("jq", &jq_);
  registry_.Register("mail", &mail_);
  registry_.Register("ssh", &ssh_);
}

}  // namespace dagu
