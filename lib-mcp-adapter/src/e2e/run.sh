#!/usr/bin/env bash
# End-to-end test: the runnable MCP demo server (examples/demo-host) driven by the official TypeScript
# MCP client (@modelcontextprotocol/sdk, pinned in package-lock.json) over stdio and Streamable HTTP.
#
# Usage: lib-mcp-adapter/src/e2e/run.sh        (from anywhere; needs JDK 17+, Maven, Node.js 18+, npm)
#
# It packages the demo host and its dependencies (tests skipped), writes the runtime classpath to a
# file, installs the npm client under lib-mcp-adapter/target/e2e (never globally), and runs e2e.mjs,
# which launches the server with `java -cp` itself. Logs: lib-mcp-adapter/target/e2e/logs.
# Environment: MVN (default: ./mvnw if present, else mvn), JAVA_HOME, E2E_SKIP_BUILD=1 to reuse the
# last build (the classpath file must exist).
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../../.." && pwd)"
WORK="$ROOT/lib-mcp-adapter/target/e2e"
HOST="$ROOT/examples/demo-host"

if [[ -z "${MVN:-}" ]]; then
  if [[ -x "$ROOT/mvnw" ]]; then MVN="$ROOT/mvnw"; else MVN=mvn; fi
fi
JAVA="java"
if [[ -n "${JAVA_HOME:-}" ]]; then JAVA="$JAVA_HOME/bin/java"; fi

command -v node >/dev/null || { echo "e2e: node is required" >&2; exit 1; }
command -v npm >/dev/null || { echo "e2e: npm is required" >&2; exit 1; }

mkdir -p "$WORK"
rm -rf "$WORK/db" "$WORK/logs"

if [[ "${E2E_SKIP_BUILD:-0}" != "1" || ! -f "$WORK/classpath.txt" ]]; then
  echo "e2e: packaging the demo host and writing its classpath"
  # In one reactor build, so the classpath points at this build's jars rather than ~/.m2. Every module
  # of -am writes the file in turn; the demo host, built last, writes the final one.
  "$MVN" -q -B -f "$ROOT/pom.xml" -pl examples/demo-host -am -DskipTests \
    package dependency:build-classpath \
    -Dmdep.outputFile="$WORK/classpath.txt" -Dmdep.includeScope=runtime
fi
CLASSPATH="$HOST/target/classes:$(cat "$WORK/classpath.txt")"

echo "e2e: installing the TypeScript MCP client under $WORK"
cp "$HERE/package.json" "$HERE/package-lock.json" "$HERE/e2e.mjs" "$HERE/tasks.mjs" "$WORK/"
(cd "$WORK" && npm ci --no-audit --no-fund --ignore-scripts --loglevel=error)

echo "e2e: running ($(node --version), $("$JAVA" -version 2>&1 | head -1))"
node "$WORK/e2e.mjs" --java "$JAVA" --classpath "$CLASSPATH" --work "$WORK"
