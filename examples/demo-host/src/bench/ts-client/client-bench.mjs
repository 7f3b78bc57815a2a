// Benchmark only: the official TypeScript MCP client (@modelcontextprotocol/sdk, pinned in
// package-lock.json) calling one trivial READ tool of a Toolgate MCP server, over Streamable HTTP or stdio.
// Driven by dev.toolgate.examples.bench.ClientLatencyBenchmark, which installs this folder under
// examples/demo-host/target/ts-client-bench and reads what this prints.
//
//   node client-bench.mjs --transport http --url http://127.0.0.1:PORT/mcp --token 'client-{i}-token' ...  ({i}: the client's number)
//   node client-bench.mjs --transport stdio --command java --args '["-cp", "...", "Main", "--transport", "stdio"]' ...
//   common: --tool bench.ping --clients 1 --warmup-ms 4000 --rounds 5 --round-ms 2000
//   --server-warmup-ms N (stdio): first N ms of 8 calls in flight, to warm the server's JIT up
//
// HTTP: each client is its own Client and session (one kept-alive connection for its POSTs, one for the
// GET stream, as the SDK opens them). stdio: one Client on one server process, with --clients calls in
// flight at a time. Each client calls the tool in a loop, one call after the other. Prints one line per
// round, "ROUND <calls> <seconds> <p50 ms> <p99 ms> <this process's CPU µs per call>", after the warm-up and a
// line "START"; "ERROR <message>" on a failure.

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const args = Object.fromEntries(process.argv.slice(2).reduce((pairs, arg, i, all) => {
  if (arg.startsWith("--")) pairs.push([arg.slice(2), all[i + 1]]);
  return pairs;
}, []));
const transport = args.transport ?? "http";
const tool = args.tool ?? "bench.ping";
const clients = Number(args.clients ?? 1);
const warmupMs = Number(args["warmup-ms"] ?? 4000);
const serverWarmupMs = Number(args["server-warmup-ms"] ?? 0);
const rounds = Number(args.rounds ?? 5);
const roundMs = Number(args["round-ms"] ?? 2000);

async function connect(_, i) {
  const client = new Client({ name: "toolgate-ts-bench", version: "1.0.0" }, { capabilities: {} });
  if (transport === "http") {
    await client.connect(new StreamableHTTPClientTransport(new URL(args.url), {
      requestInit: { headers: { Authorization: `Bearer ${args.token.replace("{i}", String(i % 64))}` } },
    }));
  } else {
    await client.connect(new StdioClientTransport({ command: args.command, args: JSON.parse(args.args), stderr: "inherit" }));
  }
  await client.listTools();
  return client;
}

async function callOnce(client) {
  const result = await client.callTool({ name: tool, arguments: {} });
  if (result.isError) throw new Error(`the call failed: ${JSON.stringify(result).slice(0, 300)}`);
}

/** Every caller calls in a loop until `until` (hrtime ns); returns each call's latency in ns. */
async function drive(callers, until) {
  const latencies = [];
  await Promise.all(callers.map(async (client) => {
    while (process.hrtime.bigint() < until) {
      const start = process.hrtime.bigint();
      await callOnce(client);
      latencies.push(Number(process.hrtime.bigint() - start));
    }
  }));
  return latencies;
}

function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))];
}

async function main() {
  const connected = transport === "http"
    ? await Promise.all(Array.from({ length: clients }, connect))
    : [await connect(undefined, 0)];
  const callers = transport === "http" ? connected : Array.from({ length: clients }, () => connected[0]);
  if (serverWarmupMs > 0) { // stdio: the server's JIT warm-up, 8 calls in flight, as the HTTP cells get from raw clients
    await drive(Array.from({ length: 8 }, () => connected[0]), process.hrtime.bigint() + BigInt(serverWarmupMs) * 1_000_000n);
  }
  await drive(callers, process.hrtime.bigint() + BigInt(warmupMs) * 1_000_000n);
  console.log("START");
  for (let r = 0; r < rounds; r++) {
    const start = process.hrtime.bigint();
    const cpu = process.cpuUsage();
    const latencies = await drive(callers, start + BigInt(roundMs) * 1_000_000n);
    const seconds = Number(process.hrtime.bigint() - start) / 1e9;
    const used = process.cpuUsage(cpu);
    latencies.sort((a, b) => a - b);
    console.log(`ROUND ${latencies.length} ${seconds.toFixed(4)} ${(percentile(latencies, 0.5) / 1e6).toFixed(4)} `
      + `${(percentile(latencies, 0.99) / 1e6).toFixed(4)} ${((used.user + used.system) / latencies.length).toFixed(1)}`);
  }
  await Promise.all(connected.map(async (client) => {
    try {
      if (transport === "http") await client.transport.terminateSession();
    } catch {
      // the server ends idle sessions itself
    }
    await client.close();
  }));
}

main().then(() => process.exit(0), (error) => {
  console.log(`ERROR ${error?.stack ?? error}`.replace(/\n/g, " | "));
  process.exit(1);
});
