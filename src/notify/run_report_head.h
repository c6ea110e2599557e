// The page head (styles) of Dagu 1.30.2's run report mail, byte for byte as
// 1.30.2 sends it; run_report.cc fills in the body.
#pragma once

namespace dagu::notify_internal {

inline constexpr const char kRunReportHead[] = R"html(<!DOCTYPE html>
<html>
<head>
    <meta charset="UTF-8">
    <meta name="viewport" content="width=device-width, initial-scale=1.0">
    <style type="text/css">
        body { 
            margin: 0; 
            padding: 20px; 
            background-color: #f8fafc; 
            font-family: -apple-system, BlinkMacSystemFont, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
            line-height: 1.6;
            color: #334155;
        }
        .container { 
            max-width: 1000px; 
            margin: 0 auto; 
        }
        .dag-info {
            background: linear-gradient(135deg, #f8fafc 0%, #ffffff 100%);
            border-radius: 16px;
            padding: 32px;
            margin-bottom: 32px;
            box-shadow: 0 4px 6px -1px rgba(0, 0, 0, 0.1), 0 2px 4px -1px rgba(0, 0, 0, 0.06);
            border: 1px solid #e2e8f0;
            position: relative;
            overflow: hidden;
        }
        .dag-info::before {
            content: "";
            position: absolute;
            top: 0;
            left: 0;
            right: 0;
            height: 4px;
            background: linear-gradient(90deg, #3b82f6 0%, #2563eb 50%, #1d4ed8 100%);
        }
        .dag-info h2 {
            margin: 32px 0 24px 0;
            color: #1e293b;
            font-size: 24px;
            font-weight: 700;
            letter-spacing: -0.5px;
        }
        .status-badge {
            position: absolute;
            top: 24px;
            right: 24px;
            display: inline-flex;
            align-items: center;
            padding: 8px 16px;
            border-radius: 24px;
            font-size: 13px;
            font-weight: 600;
            text-transform: uppercase;
            letter-spacing: 0.5px;
        }
        .status-badge.success {
            background-color: #d1fae5;
            color: #065f46;
            box-shadow: 0 0 0 1px rgba(16, 185, 129, 0.1);
        }
        .status-badge.failed {
            background-color: #fee2e2;
            color: #991b1b;
            box-shadow: 0 0 0 1px rgba(239, 68, 68, 0.1);
        }
        .status-badge.running {
            background-color: #dbeafe;
            color: #1e40af;
            box-shadow: 0 0 0 1px rgba(59, 130, 246, 0.1);
        }
        .status-badge.aborted {
            background-color: #fce7f3;
            color: #9d174d;
            box-shadow: 0 0 0 1px rgba(219, 39, 119, 0.15);
        }
        .status-badge.skipped {
            background-color: #f3f4f6;
            color: #374151;
            box-shadow: 0 0 0 1px rgba(107, 114, 128, 0.1);
        }
        .status-badge.wait {
            background-color: #fef3c7;
            color: #92400e;
            box-shadow: 0 0 0 1px rgba(245, 158, 11, 0.1);
        }
        .dag-info-grid {
            display: grid;
            grid-template-columns: repeat(auto-fit, minmax(250px, 1fr));
            gap: 24px;
        }
        .info-item {
            background-color: #ffffff;
            padding: 16px;
            border-radius: 8px;
            border: 1px solid #e5e7eb;
        }
        .dag-info-label {
            font-weight: 600;
            color: #6b7280;
            font-size: 12px;
            text-transform: uppercase;
            letter-spacing: 0.5px;
            margin-bottom: 4px;
        }
        .dag-info-value {
            color: #1e293b;
            font-size: 16px;
            font-weight: 500;
        }
        .dag-info-value.mono {
            font-family: "SF Mono", "Consolas", "Monaco", monospace;
            font-size: 14px;
            color: #0f172a;
            background-color: #f1f5f9;
            padding: 6px 10px;
            border-radius: 4px;
            display: inline-block;
            margin-top: 4px;
            word-break: break-all;
        }
        .dag-name {
            color: #1e293b;
            font-size: 18px;
            font-weight: 600;
            margin-bottom: 4px;
        }
        table { 
            border-collapse: separate; 
            border-spacing: 0; 
            width: 100%; 
            background-color: #ffffff; 
            border-radius: 12px; 
            overflow: hidden;
            box-shadow: 0 4px 6px -1px rgba(0, 0, 0, 0.1), 0 2px 4px -1px rgba(0, 0, 0, 0.06);
            border: 1px solid #e2e8f0;
        }
        th { 
            background-color: #2563eb;
            color: #ffffff; 
            font-weight: 600; 
            padding: 16px 12px; 
            text-align: left;
            font-size: 14px;
            letter-spacing: 0.5px;
            text-transform: uppercase;
        }
        td { 
            padding: 14px 12px; 
            border-bottom: 1px solid #f1f5f9; 
            vertical-align: top;
            font-size: 13px;
            line-height: 1.5;
        }
        tr:hover { background-color: #f8fafc; }
        tr:last-child td { border-bottom: none; }
        .status-finished { color: #059669; font-weight: 500; }
        .status-failed { color: #dc2626; font-weight: 500; }
        .status-running { color: #2563eb; font-weight: 500; }
        .status-skipped { color: #6b7280; font-weight: 500; }
        .status-aborted { color: #db2777; font-weight: 500; }
        .status-partial-success { color: #ea580c; font-weight: 500; }
        .status-waiting { color: #92400e; font-weight: 500; }
        .row-number {
            background-color: #f1f5f9; 
            font-weight: 600; 
            text-align: center; 
            color: #475569;
            min-width: 40px;
        }
        .step-name { font-weight: 500; color: #1e293b; }
        .command-cell { font-family: "SF Mono", "Consolas", "Monaco", monospace; font-size: 12px; color: #475569; }
        .error-cell { color: #dc2626; font-size: 12px; }
        .timestamp { color: #64748b; font-size: 12px; }
    </style>
</head>
)html";

}  // namespace dagu::notify_internal
