#include "cli/help.h"

#include <algorithm>
#include <iostream>
#include <map>
#include <mutex>
#include <sstream>
#include <vector>

namespace dagu::cli {
namespace {

std::mutex g_docs_mu;
std::map<const CLI::App*, CommandDoc>& Docs() {
  static std::map<const CLI::App*, CommandDoc> docs;
  return docs;
}

CommandDoc DocOf(const CLI::App* app) {
  std::lock_guard<std::mutex> l(g_docs_mu);
  auto it = Docs().find(app);
  return it == Docs().end() ? CommandDoc{} : it->second;
}

std::string TrimTrailing(std::string s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\n' || s.back() == '\t')) s.pop_back();
  return s;
}

bool Visible(const CLI::App* sub) { return !sub->get_name().empty() && !sub->get_group().empty(); }

std::vector<const CLI::App*> VisibleSubcommands(const CLI::App* app) {
  std::vector<const CLI::App*> subs = app->get_subcommands([](const CLI::App* s) { return Visible(s); });
  std::sort(subs.begin(), subs.end(),
            [](const CLI::App* a, const CLI::App* b) { return a->get_name() < b->get_name(); });
  return subs;
}

// The type word after a flag's name, as pflag prints it ("" for a flag
// that takes no value).
std::string TypeWord(const CLI::Option* opt) {
  if (opt->get_expected_min() == 0) return "";
  std::string t = opt->get_type_name();
  if (t.empty() || t == "TEXT") return "string";
  if (t == "INT" || t == "UINT") return "int";
  return t;
}

// "  -c, --config string" / "      --cpu-profile", sorted by long name.
std::string FlagUsages(const CLI::App* app) {
  std::vector<const CLI::Option*> opts =
      app->get_options([](const CLI::Option* o) { return o->nonpositional() && !o->get_group().empty(); });
  std::sort(opts.begin(), opts.end(), [](const CLI::Option* a, const CLI::Option* b) {
    const std::string& la = a->get_lnames().empty() ? a->get_snames().front() : a->get_lnames().front();
    const std::string& lb = b->get_lnames().empty() ? b->get_snames().front() : b->get_lnames().front();
    return la < lb;
  });
  std::vector<std::pair<std::string, std::string>> lines;
  size_t width = 0;
  for (const CLI::Option* o : opts) {
    std::string line;
    std::string lname = o->get_lnames().empty() ? "" : o->get_lnames().front();
    if (!o->get_snames().empty()) {
      line = "  -" + o->get_snames().front() + (lname.empty() ? "" : ", --" + lname);
    } else {
      line = "      --" + lname;
    }
    std::string type = TypeWord(o);
    if (!type.empty()) line += " " + type;
    std::string usage = o->get_description();
    std::string def = o->get_default_str();
    if (!def.empty() && def != "false" && def != "[]") usage += " (default \"" + def + "\")";
    width = std::max(width, line.size());
    lines.emplace_back(line, usage);
  }
  std::string out;
  for (const auto& [flag, usage] : lines) {
    out += flag + std::string(width - flag.size() + 3, ' ') + usage + "\n";
  }
  return TrimTrailing(out);
}

}  // namespace

void SetCommandDoc(const CLI::App* cmd, CommandDoc doc) {
  std::lock_guard<std::mutex> l(g_docs_mu);
  Docs()[cmd] = std::move(doc);
}

std::string CommandPath(const CLI::App* cmd) {
  std::vector<std::string> words;
  for (const CLI::App* a = cmd; a != nullptr; a = a->get_parent()) {
    words.push_back(a->get_parent() == nullptr ? "dagu" : a->get_name());
  }
  std::string path;
  for (auto it = words.rbegin(); it != words.rend(); ++it) path += (path.empty() ? "" : " ") + *it;
  return path;
}

std::string HelpText(const CLI::App* cmd) {
  return cmd->get_formatter()->make_help(cmd, cmd->get_name(), CLI::AppFormatMode::Normal);
}

void PrintHelpWhenAlone(CLI::App* cmd, int* exit_code) {
  cmd->require_subcommand(0, 1);
  cmd->callback([cmd, exit_code] {
    if (!cmd->get_subcommands().empty()) return;
    std::cout << HelpText(cmd);
    *exit_code = 0;
  });
}

void SetHelpFlag(CLI::App* cmd) {
  std::string name = cmd->get_parent() == nullptr ? "dagu" : cmd->get_name();
  cmd->set_help_flag("-h,--help", "help for " + name);
}

std::string CobraHelpFormatter::make_help(const CLI::App* app, std::string /*name*/,
                                          CLI::AppFormatMode /*mode*/) const {
  CommandDoc doc = DocOf(app);
  std::ostringstream out;
  std::string top = doc.long_text.empty() ? app->get_description() : doc.long_text;
  if (!TrimTrailing(top).empty()) out << TrimTrailing(top) << "\n\n";

  std::vector<const CLI::App*> subs = VisibleSubcommands(app);
  std::string path = CommandPath(app);
  out << "Usage:";
  // A command with subcommands of its own runs only when it does
  // something without them (scheduler, config); its doc then has a use.
  bool runnable = subs.empty() || !doc.use.empty();
  if (runnable) {
    std::string parent = app->get_parent() == nullptr ? "" : CommandPath(app->get_parent()) + " ";
    std::string use = doc.use.empty() ? app->get_name() : doc.use;
    if (use.find("[flags]") == std::string::npos) use += " [flags]";
    out << "\n  " << parent << use;
  }
  if (!subs.empty()) out << "\n  " << path << " [command]";
  if (!subs.empty()) {
    size_t pad = 11;
    for (const CLI::App* s : subs) pad = std::max(pad, s->get_name().size());
    out << "\n\nAvailable Commands:";
    for (const CLI::App* s : subs) {
      out << "\n  " << s->get_name() << std::string(pad - s->get_name().size() + 1, ' ') << s->get_description();
    }
  }
  std::string flags = FlagUsages(app);
  if (!flags.empty()) out << "\n\nFlags:\n" << flags;
  if (!subs.empty()) out << "\n\nUse \"" << path << " [command] --help\" for more information about a command.";
  out << "\n";
  return out.str();
}

}  // namespace dagu::cli
