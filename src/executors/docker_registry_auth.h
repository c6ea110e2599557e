// The X-Registry-Auth header of an image pull from a DAG's `registryAuths`
// (Dagu 1.30.2's RegistryAuthManager):
//   - {"_json": {auth: <text>}} (registryAuths written as a string): the
//     text is a DOCKER_AUTH_CONFIG document ({"auths": {host: {...}}});
//   - else the entry of the image's registry host (docker.io for a name
//     without a host part): `auth` starting with '{' is a JSON auth object;
//     otherwise username + password when both are set, else `auth`;
//   - no entry: the DOCKER_AUTH_CONFIG environment variable, looked up the
//     same way (host, "https://" + host, the host without its port).
// As in 1.30.2, nothing at all is sent when registryAuths is absent (then
// DOCKER_AUTH_CONFIG is not read either). The value is Docker's
// EncodeAuthConfig: the JSON of {username, password, auth, serveraddress}
// (empty ones left out) in base64url with padding. `expand` substitutes
// ${VAR} in the values (1.30.2 expands them with the environment).
#pragma once

#include <functional>
#include <string>

#include <nlohmann/json.hpp>

#include "core/status_or.h"

namespace dagu {

// "" when nothing is to be sent; an error for a DOCKER_AUTH_CONFIG /
// `_json` text that is not valid JSON ("invalid DOCKER_AUTH_CONFIG format").
StatusOr<std::string> RegistryAuthHeader(const nlohmann::json& registry_auths, const std::string& image,
                                         const std::string& docker_auth_config,
                                         const std::function<std::string(const std::string&)>& expand);

// 1.30.2's extractRegistry: "docker.io", or the first part of the name when
// it has a '.' or ':' or is "localhost".
std::string RegistryHostOf(const std::string& image);

}  // namespace dagu
