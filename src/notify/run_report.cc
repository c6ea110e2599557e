#include "notify/run_report.h"

#include <cctype>

#include "notify/run_report_head.h"

namespace dagu {
namespace {

std::string Upper(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

std::string BadgeClass(const std::string& status) {
  if (status == "failed" || status == "aborted" || status == "running" || status == "skipped") return status;
  return "";
}

std::string StepClass(const std::string& status) {
  if (status == "failed" || status == "aborted" || status == "running" || status == "skipped") {
    return "status-" + status;
  }
  if (status == "partially_succeeded") return "status-partial-success";
  if (status == "waiting") return "status-waiting";
  return "";
}

void InfoItem(const std::string& label, const std::string& value, bool mono, std::string* out) {
  *out += "            <div class=\"info-item\">\n";
  *out += "                <div class=\"dag-info-label\">" + label + "</div>\n";
  *out += std::string("                <div class=\"dag-info-value") + (mono ? " mono" : "") + "\">" +
          EscapeHtmlText(value) + "</div>\n";
  *out += "            </div>\n";
}

}  // namespace

const MailConfig* MailForStatus(const Dag& dag, const std::string& status) {
  if (status == "succeeded") return dag.mail_on.success ? &dag.info_mail : nullptr;
  if (status == "failed" || status == "partially_succeeded") return dag.mail_on.failure ? &dag.error_mail : nullptr;
  if (status == "waiting") return dag.mail_on.wait ? &dag.wait_mail : nullptr;
  return nullptr;
}

std::string EscapeHtmlText(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      default: out.push_back(c);
    }
  }
  return out;
}

std::string RunReportSubject(const std::string& prefix, const RunReport& report) {
  return prefix + " " + report.dag_name + " (" + report.status + ")";
}

std::string RunReportHtml(const RunReport& r) {
  std::string out = notify_internal::kRunReportHead;
  out += "<body>\n<div class=\"container\">\n    <div class=\"dag-info\">\n";
  out += "        <div class=\"status-badge " + BadgeClass(r.status) + "\">" + Upper(r.status) + "</div>\n";
  out += "        <h2>DAG Execution Details</h2>\n";
  out += "        <div class=\"dag-name\">" + EscapeHtmlText(r.dag_name) + "</div>\n";
  out += "        <div class=\"dag-info-grid\">\n";
  InfoItem("DAG Run ID", r.run_id, true, &out);
  InfoItem("Parameters", r.params.empty() ? "(none)" : r.params, true, &out);
  InfoItem("Started At", r.started_at, false, &out);
  InfoItem("Finished At", r.finished_at, false, &out);
  out += "        </div>\n    </div>\n    \n    <table>\n    <thead>\n";
  out += "    <tr><th>#</th><th>Step</th><th>Started At</th><th>Finished At</th><th>Status</th><th>Command</th>"
         "<th>Error</th></tr></thead><tbody>";
  int row = 0;
  for (const auto& s : r.steps) {
    out += "<tr><td class=\"row-number\">" + std::to_string(++row) + "</td>";
    out += "<td class=\"step-name\">" + EscapeHtmlText(s.name) + "</td>";
    out += "<td class=\"timestamp\">" + EscapeHtmlText(s.started_at) + "</td>";
    out += "<td class=\"timestamp\">" + EscapeHtmlText(s.finished_at) + "</td>";
    out += "<td class=\"" + StepClass(s.status) + "\">" + EscapeHtmlText(s.status) + "</td>";
    out += "<td class=\"command-cell\">" + EscapeHtmlText(s.command) + "</td>";
    if (s.error.empty()) out += "<td></td>";
    else out += "<td class=\"error-cell\">" + EscapeHtmlText(s.error) + "</td>";
    out += "</tr>";
  }
  out += "</tbody></table></div></body></html>";
  return out;
}

std::vector<std::string> RunReportAttachments(const RunReport& report) {
  std::vector<std::string> paths;
  for (const auto& s : report.steps) {
    if (!s.stdout_path.empty()) paths.push_back(s.stdout_path);
  }
  return paths;
}

}  // namespace dagu
