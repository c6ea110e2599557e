// secrets: (Dagu 1.30.2): a list of {name, provider, key, options}. The
// values are resolved when a run starts (src/secrets/), never at load.
#include <set>

#include "dag/dag_keys.h"
#include "dag/dag_parse.h"

namespace dagu::dag_internal {

void ParseSecrets(ParseContext& ctx, const Field& f, std::vector<SecretRef>* out) {
  if (KindOf(f.value) == ScalarKind::kNull) {
    out->clear();
    return;
  }
  if (!f.value.IsSequence()) {
    ctx.Error(f, "secrets must be a list of {name, provider, key}, got " + Quote(Describe(f.value)));
    return;
  }
  std::vector<SecretRef> secrets;
  std::set<std::string> names;
  for (size_t i = 0; i < f.value.size(); ++i) {
    Field item = ParseContext::Item(f, i, f.value[i]);
    Fields fields;
    if (!ctx.Map(item, SecretKeys(), &fields)) continue;
    SecretRef ref;
    if (const Field* x = fields.Get("name")) ctx.String(*x, &ref.name);
    if (const Field* x = fields.Get("provider")) ctx.String(*x, &ref.provider);
    if (const Field* x = fields.Get("key")) ctx.String(*x, &ref.key);
    if (const Field* x = fields.Get("options")) {
      if (!x->value.IsMap()) {
        ctx.Error(*x, "options must be a mapping, got " + Quote(Describe(x->value)));
      } else {
        for (auto it = x->value.begin(); it != x->value.end(); ++it) {
          ref.options.emplace_back(it->first.Scalar(), it->second.IsScalar() ? it->second.Scalar() : "");
        }
      }
    }
    ref.name = Trim(ref.name);
    ref.provider = Trim(ref.provider);
    ref.key = Trim(ref.key);
    std::string at = "secret at index " + std::to_string(i) + ": ";
    if (ref.name.empty()) {
      ctx.Error(item, at + "'name' field is required");
      continue;
    }
    if (ref.provider.empty()) {
      ctx.Error(item, at + "'provider' field is required");
      continue;
    }
    if (ref.key.empty()) {
      ctx.Error(item, at + "'key' field is required");
      continue;
    }
    if (!names.insert(ref.name).second) {
      ctx.Error(item, "duplicate secret name " + Quote(ref.name));
      continue;
    }
    secrets.push_back(std::move(ref));
  }
  *out = std::move(secrets);
}

}  // namespace dagu::dag_internal
