// `container:` (Dagu 1.30.2's core.Container), at DAG and step level, read at
// load time into one JSON shape (Step::container_json, Dag::container_json):
// Go's field names, as Dagu writes the object into dag.json, so that Dagu
// reads what we write and the other way round.
//
//   a string            exec into that existing container ({"Exec": name})
//   {image: ...}        a new container; keys name, pullPolicy (always |
//                       never | missing | a bool), env (map or list), volumes,
//                       user, workingDir (workDir: the deprecated alias, wins
//                       when both are given), platform, ports, network,
//                       keepContainer, startup (keepalive | entrypoint |
//                       command), command, waitFor (running | healthy),
//                       logPattern, restartPolicy (no | always |
//                       unless-stopped)
//   {exec: name, ...}   an existing container; only user, workingDir and env
//
// Errors are 1.30.2's: "'exec' and 'image' are mutually exclusive", "either
// 'exec' or 'image' must be specified", "fields [name volumes] cannot be used
// with 'exec'", "container name cannot be empty", a bad pullPolicy. Checked
// here too, where 1.30.2 fails only when the run starts: startup, waitFor and
// restartPolicy values and a startup: command without a command.
#pragma once

#include <string>

namespace dagu::dag_internal {

class ParseContext;
struct Field;

// Reads `f` (a container: value) into *json (text); false after an error.
bool ParseContainer(ParseContext& ctx, const Field& f, std::string* json);

// registryAuths: a string (a DOCKER_AUTH_CONFIG JSON text) or a map of
// registry host -> a base64 "user:password" string or {username, password,
// auth}. Kept as JSON text in the shape of 1.30.2's map[string]*AuthConfig
// (a string becomes {"_json": {"auth": text}}, a host's string {"auth": s});
// values are expanded with the process environment when a pull needs them.
bool ParseRegistryAuths(ParseContext& ctx, const Field& f, std::string* json);

}  // namespace dagu::dag_internal
