#!/usr/bin/env bash
# Writes the dagu(1) man page (roff) generated from `dagu --help` and each
# command's `--help`, to stdout. Usage: scripts/make-manpage.sh <dagu binary>
# (the .deb build runs it; see the cpack section of CMakeLists.txt).
set -euo pipefail
dagu="$1"
version="$("$dagu" version 2>&1 | head -n1 | tr -d '\r')"

# Escapes a help text for roff: backslashes, and lines starting with . or '.
roff() { sed -e 's/\\/\\e/g' -e "s/^\\([.']\\)/\\\\\\&\\1/"; }

printf '.TH DAGU 1 "%s" "dagu %s" "User Commands"\n' "$(date -u +%Y-%m-%d)" "$version"
printf '.SH NAME\ndagu \\- workflow engine: DAGs in YAML, cron schedules, web UI, a highly available scheduler\n'
printf '.SH SYNOPSIS\n.B dagu\n\\fIcommand\\fR [\\fIflags\\fR]\n'
printf '.SH DESCRIPTION\n.nf\n'
"$dagu" --help 2>&1 | roff
printf '.fi\n.SH COMMANDS\n'
"$dagu" --help 2>&1 | awk '/^Available Commands:/ {on=1; next} on && /^$/ {exit} on {print $1}' |
  while read -r cmd; do
    [ "$cmd" = help ] && continue
    printf '.SS %s\n.nf\n' "$cmd"
    "$dagu" "$cmd" --help 2>&1 | roff
    printf '.fi\n'
  done
printf '.SH FILES\n.TP\n.I /lib/systemd/system/dagu-scheduler.service, dagu-start-all.service\nsystemd units (Type=notify, WatchdogSec).\n'
printf '.TP\n.I /usr/share/doc/dagu/examples/config.yaml\nan example configuration.\n'
printf '.SH EXIT STATUS\n0 stopped or succeeded; 75 the scheduler lost its role (restart it); 78 configuration error (do not restart).\n'
