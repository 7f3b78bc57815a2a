#!/usr/bin/env bash
# Tests the launcher examples/demo-host/mcp-demo, the command the README's Claude Desktop configuration
# runs: on a copy of the repository without any target directory (what `./mvnw clean` or a fresh clone
# leaves), it must build what it needs and then answer an MCP initialize and tools/list over stdio,
# with nothing but protocol messages on standard output; launched again, it must start without
# building. The copy (the tracked and untracked files, not the ignored ones) is made under
# examples/demo-host/target/mcp-demo-test and deleted afterwards; Maven uses the usual local repository.
#
# Usage: examples/demo-host/src/mcp-demo-test/run.sh        (needs JDK 17+; about two minutes warm)
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../../../.." && pwd)"
WORK="$ROOT/examples/demo-host/target/mcp-demo-test"
COPY="$WORK/repo"

rm -rf "$WORK"
mkdir -p "$COPY"
(cd "$ROOT" && git ls-files -z --cached --others --exclude-standard \
  | tar --null -T - --ignore-failed-read -cf - 2>/dev/null) | tar -xf - -C "$COPY"
[[ ! -d "$COPY/examples/demo-host/target" && ! -d "$COPY/lib-core/target" ]] || { echo "mcp-demo-test: the copy has target directories" >&2; exit 1; }

# launch LABEL: runs the launcher as a client does, sends initialize, initialized and tools/list, and
# checks the answers; the server's standard error goes to $WORK/LABEL.err
launch() {
  local label="$1" out="$WORK/$1.out" err="$WORK/$1.err"
  coproc SERVER { exec "$COPY/examples/demo-host/mcp-demo" --principal carol --db memory 2>"$err"; }
  local pid=$SERVER_PID
  printf '%s\n' \
    '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"mcp-demo-test","version":"1"}}}' \
    '{"jsonrpc":"2.0","method":"notifications/initialized"}' \
    '{"jsonrpc":"2.0","id":2,"method":"tools/list"}' >&"${SERVER[1]}"
  : >"$out"
  local line
  # read until the answer to tools/list (notifications may come between); the first may wait for a build
  while ! grep -q '"id":2,' "$out"; do
    if ! IFS= read -r -t 900 line <&"${SERVER[0]}"; then
      cat "$out" "$err" >&2; echo "mcp-demo-test ($label): no answer on standard output" >&2; kill "$pid" 2>/dev/null; return 1
    fi
    printf '%s\n' "$line" >>"$out"
  done
  exec {SERVER[1]}>&-   # end of input: the server stops
  wait "$pid" || { cat "$err" >&2; echo "mcp-demo-test ($label): the server exited with an error" >&2; return 1; }
  # every line of standard output is a JSON-RPC message: the build and the logs stayed on standard error
  if grep -vq '^{"jsonrpc":"2.0"' "$out"; then
    cat "$out" >&2; echo "mcp-demo-test ($label): standard output carries more than the protocol" >&2; return 1
  fi
  grep -q '"id":1,"result":{.*"serverInfo":{"name":"toolgate-demo"' "$out" \
    || { cat "$out" "$err" >&2; echo "mcp-demo-test ($label): no initialize result" >&2; return 1; }
  grep -q '"id":2,"result":{"tools":\[.*"name":"incident.create"' "$out" \
    || { cat "$out" "$err" >&2; echo "mcp-demo-test ($label): tools/list lacks carol's tools" >&2; return 1; }
  echo "mcp-demo-test ($label): initialize and tools/list answered over stdio"
}

launch after-clean
grep -q "mcp-demo: building" "$WORK/after-clean.err" || { echo "mcp-demo-test: the first launch did not build" >&2; exit 1; }
launch built
if grep -q "mcp-demo: building" "$WORK/built.err"; then echo "mcp-demo-test: the second launch built again" >&2; exit 1; fi
rm -rf "$COPY"
echo "mcp-demo-test: ok"
