#!/usr/bin/env bash
# Browser end-to-end test of the operator console (lib-console): starts the demo MCP server with its
# console (McpDemoServer --transport http --console-port 0, in-memory store, approve mode), then drives
# Debian's headless Chromium with playwright-core (pinned in package.json; no browser download) through
# console-e2e.mjs: sign in, carol's proposal card and its diff, approve, deny with a reason, two
# operators racing on one card, edit, a non-approver, forged CSRF/Origin requests, XSS in tool
# arguments, CSP and cookie flags. Screenshots of the inbox and the audit page go to
# examples/demo-host/target/console-e2e/ (with --update-docs also to docs/ at the repository root).
#
# Usage: examples/demo-host/src/console-e2e/run.sh [--update-docs]   (needs JDK 17+, Maven, Node 20+, npm, Chromium)
# Environment: MVN (default ./mvnw), JAVA_HOME, CHROMIUM (default /usr/bin/chromium),
# CONSOLE_E2E_SKIP_BUILD=1 to reuse the last build and classpath.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../../../.." && pwd)"
HOST="$ROOT/examples/demo-host"
WORK="$HOST/target/console-e2e"

if [[ -z "${MVN:-}" ]]; then
  if [[ -x "$ROOT/mvnw" ]]; then MVN="$ROOT/mvnw"; else MVN=mvn; fi
fi
JAVA="java"
if [[ -n "${JAVA_HOME:-}" ]]; then JAVA="$JAVA_HOME/bin/java"; fi
command -v npm >/dev/null || { echo "console-e2e: npm is required" >&2; exit 1; }
command -v node >/dev/null || { echo "console-e2e: node is required" >&2; exit 1; }
export CHROMIUM="${CHROMIUM:-/usr/bin/chromium}"
[[ -x "$CHROMIUM" ]] || { echo "console-e2e: no Chromium at $CHROMIUM (apt-get install chromium, or set CHROMIUM)" >&2; exit 1; }

mkdir -p "$WORK/node" "$WORK/logs"
rm -f "$WORK"/*.png "$WORK/logs"/*

if [[ "${CONSOLE_E2E_SKIP_BUILD:-0}" != "1" || ! -f "$WORK/classpath.txt" ]]; then
  echo "console-e2e: packaging the demo host and writing its classpath"
  "$MVN" -q -B -f "$ROOT/pom.xml" -pl examples/demo-host -am -DskipTests \
    package dependency:build-classpath \
    -Dmdep.outputFile="$WORK/classpath.txt" -Dmdep.includeScope=runtime
fi
CLASSPATH="$HOST/target/classes:$(cat "$WORK/classpath.txt")"

echo "console-e2e: installing playwright-core under $WORK/node (no browser download)"
cp "$HERE/package.json" "$HERE/package-lock.json" "$HERE/console-e2e.mjs" "$WORK/node/"
(cd "$WORK/node" && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund --loglevel=error)

pids=()
cleanup() { for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done; }
trap cleanup EXIT

# wait_for FILE PATTERN: the first line of FILE matching PATTERN, within 60 seconds
wait_for() {
  for _ in $(seq 1 600); do
    if line=$(grep -m1 -E "$2" "$1" 2>/dev/null); then echo "$line"; return 0; fi
    if ! kill -0 "${pids[0]}" 2>/dev/null; then cat "$1" >&2; echo "console-e2e: the host exited" >&2; return 1; fi
    sleep 0.1
  done
  cat "$1" >&2; echo "console-e2e: timed out waiting for '$2' in $1" >&2; return 1
}

"$JAVA" -Xmx256m -cp "$CLASSPATH" dev.toolgate.examples.mcp.McpDemoServer --transport http --port 0 \
  --console-port 0 --db memory --mode approve >"$WORK/logs/host.log" 2>&1 &
pids+=($!)
mcp=$(wait_for "$WORK/logs/host.log" 'http://[^ ]+/mcp' | grep -oE 'http://[^ ]+/mcp' | head -1)
console=$(wait_for "$WORK/logs/host.log" 'http://[^ ]+/console/' | grep -oE 'http://[^ ]+/console/' | head -1)
echo "console-e2e: host MCP $mcp, console $console; $(node --version), $("$CHROMIUM" --version 2>/dev/null | head -1)"

set +e
node "$WORK/node/console-e2e.mjs" --console "$console" --mcp "$mcp" --out "$WORK" --docs "$ROOT/docs" "$@" 2>&1 \
  | tee "$WORK/logs/e2e.log"
status=${PIPESTATUS[0]}
set -e
unexpected=$(grep -E "Exception|ERROR" "$WORK/logs/host.log" || true)
if [[ -n "$unexpected" ]]; then
  echo "console-e2e: the host logged an error (see $WORK/logs/host.log):" >&2
  echo "$unexpected" | head -20 >&2
  status=1
fi
[[ "$status" == 0 ]] || exit "$status"

# The console under load on a small heap: many sessions polling and deciding, sign-ins and sign-outs,
# a secret-guesser (ConsoleSoak; CONSOLE_SOAK_SECONDS=0 skips it).
if [[ "${CONSOLE_SOAK_SECONDS:-30}" != "0" ]]; then
  echo "console-e2e: soak of ${CONSOLE_SOAK_SECONDS:-30} s, 64 sessions, -Xmx128m"
  "$JAVA" -Xmx128m -cp "$CLASSPATH" dev.toolgate.examples.bench.ConsoleSoak --seconds "${CONSOLE_SOAK_SECONDS:-30}" \
    --sessions 64 --db "${CONSOLE_SOAK_DB:-memory}" >"$WORK/logs/soak.log" 2>&1 || {
    grep -vE "^\[.*\] INFO" "$WORK/logs/soak.log" | tail -20 >&2; echo "console-e2e: the soak failed" >&2; exit 1; }
  grep -E "^ +[0-9]+ |^requests|^PASS|^console soak" "$WORK/logs/soak.log"
fi
exit 0
