// HttpRunner: `type: http` (Dagu 1.30.2), on libcurl. The command is
// "METHOD URL"; config (or, when the step has a script, the script as JSON):
//   headers           mapping of request headers
//   query             mapping of query parameters (merged into the URL's,
//                     encoded and sorted as Go does)
//   body              request body
//   timeout           seconds for the whole request (0: none)
//   silent            print only the body on success
//   json / format: json   print {"status_code", "headers", "body"} as Go's
//                     MarshalIndent with one space (the body parsed as JSON)
//   skip_tls_verify   do not verify the server certificate
// Config strings and the command are expanded with the step's variables
// (an unknown one becomes ""). HTTPS verifies against the system trust
// store, or SSL_CERT_FILE / SSL_CERT_DIR (from the step's environment) as
// Go does.
//
// Output as 1.30.2 writes it: "200 OK\n", the response headers sorted
// ("Key: value\r\n"), then the body; silent prints only the body. A non-2xx
// status fails the step after printing: "http status code not 2xx: 404".
// Transport errors read as Go's: `Get "URL": dial tcp 127.0.0.1:1: connect:
// connection refused`. Signal() aborts the transfer at once.
#pragma once

#include <map>
#include <string>

#include "executors/step_runner.h"

namespace dagu {

class HttpRunner final : public StepRunner {
 public:
  std::unique_ptr<RunningStep> Start(const StepInvocation& invocation) override;
};

// What Go's http client says of a failed transfer (`url` the request's),
// after "<Op> \"<url>\": ": `rc` a CURLcode, `os_errno` CURLINFO_OS_ERRNO.
std::string GoTransportError(int rc, long os_errno, bool got_headers, const std::string& url);

// Go's http.CanonicalHeaderKey: "content-type" -> "Content-Type".
std::string CanonicalHeaderKey(const std::string& key);

// Go's url.Values.Encode of `values` (sorted by key, QueryEscape'd).
std::string EncodeQuery(const std::multimap<std::string, std::string>& values);

}  // namespace dagu
