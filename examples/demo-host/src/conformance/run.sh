#!/usr/bin/env bash
# Runs the official MCP conformance suite (@modelcontextprotocol/conformance, pinned in package.json,
# on Node 22 from the npm registry) against Toolgate's conformance host,
# dev.toolgate.examples.mcp.ConformanceServer (a test fixture: loopback only, bearer token
# conformance-token). The suite sends no credentials, so proxy.mjs adds the token in between.
#
# Usage: examples/demo-host/src/conformance/run.sh   (needs JDK 17+, Maven, npm; Node 22 comes from npm)
#
# Every server scenario of spec version 2025-11-25 runs (--suite all, pending ones included); the run
# fails on any failure not listed in expected-failures.yml, and on any listed one that passes. Results
# (checks.json per scenario) and logs: examples/demo-host/target/conformance.
# Environment: MVN (default ./mvnw), JAVA_HOME, CONFORMANCE_SKIP_BUILD=1 to reuse the last classpath,
# CONFORMANCE_TRANSPORT=servlet to run the same fixtures through the SDK's servlet transport on Jetty
# (for the comparison in lib-mcp-adapter/README.md; CI runs the standalone server).
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../../../.." && pwd)"
HOST="$ROOT/examples/demo-host"
WORK="$HOST/target/conformance"

if [[ -z "${MVN:-}" ]]; then
  if [[ -x "$ROOT/mvnw" ]]; then MVN="$ROOT/mvnw"; else MVN=mvn; fi
fi
JAVA="java"
if [[ -n "${JAVA_HOME:-}" ]]; then JAVA="$JAVA_HOME/bin/java"; fi
command -v npm >/dev/null || { echo "conformance: npm is required" >&2; exit 1; }

mkdir -p "$WORK"
rm -rf "$WORK/results" "$WORK/logs"
mkdir -p "$WORK/logs"

if [[ "${CONFORMANCE_SKIP_BUILD:-0}" != "1" || ! -f "$WORK/classpath.txt" ]]; then
  echo "conformance: packaging the demo host and writing its classpath"
  "$MVN" -q -B -f "$ROOT/pom.xml" -pl examples/demo-host -am -DskipTests \
    package dependency:build-classpath \
    -Dmdep.outputFile="$WORK/classpath.txt" -Dmdep.includeScope=runtime
fi
CLASSPATH="$HOST/target/classes:$(cat "$WORK/classpath.txt")"

echo "conformance: installing the suite and Node 22 under $WORK"
cp "$HERE/package.json" "$HERE/package-lock.json" "$HERE/proxy.mjs" "$HERE/expected-failures.yml" "$WORK/"
(cd "$WORK" && npm ci --no-audit --no-fund --loglevel=error)
NODE="$WORK/node_modules/.bin/node"
"$NODE" --version | grep -q '^v22\.' || { echo "conformance: Node 22 did not install ($("$NODE" --version))" >&2; exit 1; }

pids=()
cleanup() { for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done; }
trap cleanup EXIT

# wait_for FILE PATTERN: the first line of FILE matching PATTERN, within 60 seconds
wait_for() {
  for _ in $(seq 1 600); do
    if line=$(grep -m1 -E "$2" "$1" 2>/dev/null); then echo "$line"; return 0; fi
    sleep 0.1
  done
  cat "$1" >&2; echo "conformance: timed out waiting for '$2' in $1" >&2; return 1
}

"$JAVA" -Xmx256m -cp "$CLASSPATH" dev.toolgate.examples.mcp.ConformanceServer --port 0 \
  --transport "${CONFORMANCE_TRANSPORT:-standalone}" >"$WORK/logs/server.log" 2>&1 &
pids+=($!)
endpoint=$(wait_for "$WORK/logs/server.log" 'Conformance host on http://' | grep -oE 'http://[^ ]+')
port=$(echo "$endpoint" | sed -E 's#http://[^:]+:([0-9]+)/.*#\1#')

"$NODE" "$WORK/proxy.mjs" --listen 0 --target "$port" --token conformance-token >"$WORK/logs/proxy.log" 2>&1 &
pids+=($!)
url=$(wait_for "$WORK/logs/proxy.log" '^proxy on ' | awk '{print $3}')

echo "conformance: $("$NODE" --version), suite $(cd "$WORK" && "$NODE" node_modules/.bin/conformance --version), host $endpoint via $url"
cd "$WORK"
set +e
"$NODE" node_modules/.bin/conformance server --url "$url" --spec-version 2025-11-25 --suite all \
  --expected-failures expected-failures.yml -o "$WORK/results" 2>&1 | tee "$WORK/logs/suite.log"
status=${PIPESTATUS[0]}
set -e
# the one failure the suite asks for (test_error_handling) is logged as a WARN; anything else is an error
unexpected=$(grep -E "Exception|ERROR" "$WORK/logs/server.log" | grep -vF "Tool conformance.test_error_handling failed" || true)
if [[ -n "$unexpected" ]]; then
  echo "conformance: the host logged an error (see $WORK/logs/server.log):" >&2
  echo "$unexpected" | head -20 >&2
  status=1
fi
exit "$status"
