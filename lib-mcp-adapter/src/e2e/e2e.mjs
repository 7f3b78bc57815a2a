// End-to-end test of the Toolgate MCP demo server (examples/demo-host, dev.toolgate.examples.mcp.McpDemoServer)
// with the official TypeScript MCP client, over stdio and Streamable HTTP.
//
//   node e2e.mjs --java <java> --classpath <classpath> --work <dir>
//
// Run it through run.sh, which installs the client under target/e2e and builds the classpath.
// Exits 0 when every check passes, 1 otherwise.

import { spawn } from "node:child_process";
import { createWriteStream, mkdirSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ElicitRequestSchema, McpError } from "@modelcontextprotocol/sdk/types.js";
import { tasks, tasksWithUserConsent } from "./tasks.mjs";

const MAIN = "dev.toolgate.examples.mcp.McpDemoServer";
const RATE_LIMITED = -32029;

const args = Object.fromEntries(process.argv.slice(2).reduce((pairs, arg, i, all) => {
  if (arg.startsWith("--")) pairs.push([arg.slice(2), all[i + 1]]);
  return pairs;
}, []));
const java = args.java ?? "java";
const classpath = args.classpath;
const work = args.work ?? ".";
if (!classpath) {
  console.error("usage: node e2e.mjs --java <java> --classpath <classpath> --work <dir>");
  process.exit(2);
}
mkdirSync(join(work, "logs"), { recursive: true });

let failures = 0;
let passes = 0;
function check(condition, what, detail) {
  if (condition) {
    passes++;
    console.log(`  ok   ${what}`);
  } else {
    failures++;
    console.log(`  FAIL ${what}${detail === undefined ? "" : ": " + JSON.stringify(detail)}`);
  }
}
async function expectError(promise) {
  try {
    const value = await promise;
    return { value };
  } catch (error) {
    return { error };
  }
}

const processes = [];
function serverArgs(transport, extra) {
  return ["-cp", classpath, MAIN, "--transport", transport, ...extra];
}

// ------------------------------------------------------------------------------------ connections

async function stdioClient(name, principal, extra, capabilities = {}) {
  const log = createWriteStream(join(work, "logs", `${name}.stderr.log`));
  const transport = new StdioClientTransport({
    command: java,
    args: serverArgs("stdio", ["--principal", principal, ...extra]),
    stderr: "pipe",
  });
  transport.stderr?.pipe(log);
  const client = new Client({ name: "toolgate-e2e", version: "1.0.0" }, { capabilities });
  await client.connect(transport);
  return client;
}

async function startHttpServer(name, extra) {
  const log = createWriteStream(join(work, "logs", `${name}.stderr.log`));
  // port 0: the server binds a free port and prints its endpoint on stderr
  const child = spawn(java, serverArgs("http", ["--port", "0", ...extra]), { stdio: ["ignore", "pipe", "pipe"] });
  processes.push(child);
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk) => { stdout += chunk; });
  child.stderr.on("data", (chunk) => { stderr += chunk; });
  child.stderr.pipe(log);
  const url = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name} did not start within 60 s`)), 60_000);
    child.stderr.on("data", () => {
      const match = stderr.match(/Toolgate demo MCP server on (http:\/\/\S+\/mcp)/);
      if (match) {
        clearTimeout(timer);
        resolve(new URL(match[1]));
      }
    });
    child.on("exit", (code) => { clearTimeout(timer); reject(new Error(`${name} exited with ${code}`)); });
  });
  return { url, child, stdout: () => stdout, stderr: () => stderr };
}

async function httpClient(server, token, capabilities = {}) {
  const transport = new StreamableHTTPClientTransport(server.url, {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  const client = new Client({ name: "toolgate-e2e", version: "1.0.0" }, { capabilities });
  await client.connect(transport);
  return client;
}

// ------------------------------------------------------------------------------------ the checks

// codemode.run is a mutating tool (with a standing approval) that every principal is offered, so everyone
// who is offered it also sees the apply tool and the decisions on runs
const CODEMODE_TOOLS = ["codemode.describe", "codemode.run", "codemode.test"];
const DECISION_TOOLS = ["toolgate.apply", "toolgate.approve", "toolgate.reject", "toolgate.rollback"];
const DOCS_TOOLS = ["docs.getDoc", "docs.listDocs", "docs.searchDocs"];
const CAROL_TOOLS = ["catalog.listSystems", ...CODEMODE_TOOLS, ...DOCS_TOOLS, "incident.create", "incident.delete", "incident.get",
  "incident.list", "incident.update", "run.incident.escalate", ...DECISION_TOOLS, "web.probeUrl"].sort();
const BOB_TOOLS = ["catalog.listSystems", ...CODEMODE_TOOLS, ...DOCS_TOOLS, "incident.get", "incident.list", "run.incident.escalate",
  ...DECISION_TOOLS].sort();

async function names(client) {
  return (await client.listTools()).tools.map((tool) => tool.name).sort();
}

/** The checks every transport must pass; `connect(principal, capabilities)` opens a client. */
async function governedCalls(label, connect) {
  console.log(`${label}: tools, calls, proposals`);
  const carol = await connect("carol");
  const bob = await connect("bob");

  check(JSON.stringify(await names(carol)) === JSON.stringify(CAROL_TOOLS), `${label} carol lists her tools`, await names(carol));
  check(JSON.stringify(await names(bob)) === JSON.stringify(BOB_TOOLS), `${label} bob lists only read tools`, await names(bob));
  const tools = Object.fromEntries((await carol.listTools()).tools.map((tool) => [tool.name, tool]));
  check(tools["incident.list"].annotations?.readOnlyHint === true, `${label} read tool is readOnlyHint`);
  check(tools["incident.create"].annotations?.destructiveHint === false, `${label} mutate tool is not destructive`);
  check(tools["incident.delete"].annotations?.destructiveHint === true, `${label} delete tool is destructiveHint`);
  check(tools["incident.create"].inputSchema?.type === "object" && "title" in (tools["incident.create"].inputSchema.properties ?? {}),
    `${label} input schema is the descriptor's`);

  const systems = await carol.callTool({ name: "catalog.listSystems", arguments: {} });
  check(!systems.isError && systems.structuredContent?.status === "executed", `${label} read call executes`, systems.structuredContent);
  const systemId = systems.structuredContent?.result?.[0]?.id;
  check(typeof systemId === "string", `${label} read call returns data`, systems.structuredContent?.result);

  const listed = await bob.callTool({ name: "incident.list", arguments: {} });
  check(!listed.isError && Array.isArray(listed.structuredContent?.result), `${label} bob reads incidents`);
  check(JSON.parse(listed.content[0].text).status === "executed", `${label} text block holds the same JSON`);

  // resources: the caller's guide, and an incident read through the gate (a hidden one looks unknown)
  const resources = (await bob.listResources()).resources.map((resource) => resource.uri);
  const templates = (await bob.listResourceTemplates()).resourceTemplates.map((template) => template.uriTemplate);
  check(resources.includes("toolgate://guide") && templates.includes("incident://{id}"), `${label} bob lists the resources`,
    { resources, templates });
  const firstId = listed.structuredContent?.result?.[0]?.id;
  const read = await bob.readResource({ uri: `incident://${firstId}` });
  check(JSON.parse(read.contents?.[0]?.text ?? "{}").id === firstId && read.contents[0].mimeType === "application/json",
    `${label} bob reads an incident as a resource`, read);
  const guide = await bob.readResource({ uri: "toolgate://guide" });
  check(guide.contents?.[0]?.text?.includes("incident.list") && !guide.contents[0].text.includes("incident.create"),
    `${label} bob's guide lists his tools only`);
  const noIncident = await expectError(bob.readResource({ uri: "incident://INC-999999" }));
  check(noIncident.error instanceof McpError && noIncident.error.code === -32002, `${label} an unknown incident is not found`,
    noIncident.error?.message);

  const proposed = await carol.callTool({
    name: "incident.create",
    arguments: { systemId, title: `E2E ${label} incident`, severity: "LOW" },
  });
  const proposal = proposed.structuredContent ?? {};
  check(!proposed.isError && proposal.status === "awaiting_user", `${label} mutation is proposed (the user consents)`, proposal);
  check(typeof proposal.token === "string" && proposal.summary && proposal.payload && Array.isArray(proposal.diff) && proposal.expiresAt,
    `${label} proposal has token, summary, payload, diff, expiry`);
  const before = await carol.callTool({ name: "incident.list", arguments: {} });
  check(!JSON.stringify(before.structuredContent).includes(`E2E ${label} incident`), `${label} nothing changed before apply`);

  const applied = await carol.callTool({ name: "toolgate.apply", arguments: { token: proposal.token } });
  check(!applied.isError && applied.structuredContent?.status === "applied", `${label} apply applies`, applied.structuredContent);
  const after = await carol.callTool({ name: "incident.list", arguments: {} });
  check(JSON.stringify(after.structuredContent).includes(`E2E ${label} incident`), `${label} the incident exists after apply`);

  const replayed = await carol.callTool({ name: "toolgate.apply", arguments: { token: proposal.token } });
  check(replayed.isError === true && replayed.structuredContent?.code === "already_used", `${label} replayed apply is refused`,
    replayed.structuredContent);

  const run = await carol.callTool({
    name: "run.incident.escalate",
    arguments: { systemId, title: `E2E ${label} escalation`, severity: "HIGH" },
  });
  const paused = run.structuredContent ?? {};
  check(!run.isError && paused.status === "paused" && paused.pending?.[0]?.seq === 2 && paused.pending[0].tool === "incident.create",
    `${label} a program's run pauses at the step that needs consent`, paused);
  const second = await carol.callTool({ name: "toolgate.approve", arguments: { executionId: paused.executionId, seq: 2 } });
  check(!second.isError && second.structuredContent?.status === "paused" && second.structuredContent.pending?.[0]?.seq === 3,
    `${label} approving the step replays the run to its next pause`, second.structuredContent);
  const done = await carol.callTool({ name: "toolgate.approve", arguments: { executionId: paused.executionId, seq: 3 } });
  check(!done.isError && done.structuredContent?.status === "completed" && done.structuredContent.result?.severity === "CRITICAL",
    `${label} approving the last step completes the run`, done.structuredContent);
  const stale = await carol.callTool({ name: "toolgate.approve", arguments: { executionId: paused.executionId, seq: 3 } });
  check(stale.isError === true && stale.structuredContent?.status === "not_paused", `${label} a stale approval changes nothing`,
    stale.structuredContent);

  const unknown = await expectError(carol.callTool({ name: "incident.frobnicate", arguments: {} }));
  check(unknown.error instanceof McpError && unknown.error.code === -32602, `${label} unknown tool is -32602`, unknown.error?.message);
  const hidden = await expectError(bob.callTool({ name: "incident.create", arguments: { systemId, title: "nope", severity: "LOW" } }));
  check(hidden.error instanceof McpError && hidden.error.code === -32602, `${label} hidden tool is -32602 too`, hidden.error?.message);

  const bad = await carol.callTool({ name: "incident.create", arguments: { systemId, title: 5, severity: "LOUD" } });
  const issues = bad.structuredContent?.issues ?? [];
  check(bad.isError === true && bad.structuredContent?.kind === "validation" && issues.length >= 2,
    `${label} bad arguments are isError with issues`, bad.structuredContent);
  const dryRun = await carol.callTool({ name: "incident.create", arguments: { systemId: "no-such-system", title: "Valid title", severity: "LOW" } });
  check(dryRun.isError === true && dryRun.structuredContent?.issues?.[0]?.path === "/systemId",
    `${label} dry-run rejection is isError with the issue`, dryRun.structuredContent);

  await carol.close();
  await bob.close();
}

/** Codemode as a model uses it: declarations, a dry test, a run that pauses, an operator's approval, a rollback. */
async function codemode(label, connect) {
  console.log(`${label}: codemode`);
  const carol = await connect("carol");
  const alice = await connect("alice");

  const described = await carol.callTool({ name: "codemode.describe", arguments: {} });
  const typescript = described.structuredContent?.result?.typescript ?? "";
  check(!described.isError && typescript.includes("declare const tools") && typescript.includes("create(input"),
    `${label} codemode.describe declares carol's tools`, typescript.slice(0, 400));
  check(!typescript.includes("codemode"), `${label} the declarations leave codemode's own tools out`);

  const script = [
    "const systems = tools.catalog.listSystems({});",
    `const incident = tools.incident.create({systemId: systems[0].id, title: "E2E ${label} codemode", severity: "HIGH"});`,
    "console.log('opened', incident.id, 'for', systems[0].owner);",
    "return {incident: incident.id, owner: systems[0].owner};",
  ].join("\n");
  const tested = await carol.callTool({ name: "codemode.test", arguments: { code: script } });
  const report = tested.structuredContent?.result ?? {};
  check(!tested.isError && report.status === "completed" && report.wouldPause?.[0] === 2 && report.steps?.[0]?.outcome === "ran",
    `${label} codemode.test runs the read and dry-runs the mutation`, report);

  const ran = await carol.callTool({ name: "codemode.run", arguments: { code: script } });
  const outcome = ran.structuredContent ?? {};
  check(!ran.isError && outcome.status === "paused" && outcome.awaiting === "user" && typeof outcome.callId === "string"
    && outcome.pending?.[0]?.seq === 2 && outcome.pending[0].tool === "incident.create",
    `${label} codemode.run answers paused at incident.create`, ran.structuredContent);
  const before = await carol.callTool({ name: "incident.list", arguments: {} });
  check(!JSON.stringify(before.structuredContent).includes(`E2E ${label} codemode`), `${label} nothing is created while paused`);

  const heard = [];
  const approved = await alice.callTool({ name: "toolgate.approve", arguments: { executionId: outcome.executionId, seq: 2 } },
    undefined, { onprogress: (progress) => heard.push(progress) });
  check(heard.length >= 2 && heard[0].message === "step 1: catalog.listSystems" && heard[1].message === "step 2: incident.create"
    && heard[1].progress > heard[0].progress, `${label} the approver hears the run's steps as progress`, heard);
  const done = approved.structuredContent ?? {};
  check(!approved.isError && done.status === "completed" && typeof done.result?.incident === "string"
    && done.logs?.[0]?.startsWith("opened"), `${label} the operator approves and the script completes`, done);
  const created = await carol.callTool({ name: "incident.get", arguments: { id: done.result?.incident } });
  check(!created.isError, `${label} the script's incident exists`, created.structuredContent);

  const rolled = await alice.callTool({ name: "toolgate.rollback", arguments: { executionId: outcome.executionId } });
  check(!rolled.isError && rolled.structuredContent?.status === "rolled_back" && rolled.structuredContent.reverted === 1,
    `${label} toolgate.rollback reverts what the script applied`, rolled.structuredContent);
  const gone = await carol.callTool({ name: "incident.get", arguments: { id: done.result?.incident } });
  check(gone.isError === true, `${label} the incident is gone after the rollback`, gone.structuredContent);

  const syntax = await carol.callTool({ name: "codemode.run", arguments: { code: "const x = 1;\nreturn x +;" } });
  const syntaxOutcome = syntax.structuredContent ?? {};
  check(syntax.isError === true && syntaxOutcome.status === "error" && /2:\d+/.test(syntaxOutcome.error ?? ""),
    `${label} a syntax error says where`, syntaxOutcome);
  const escape = await carol.callTool({ name: "codemode.run", arguments: { code: "return Java.type('java.lang.System').getenv();" } });
  check(escape.structuredContent?.status === "error", `${label} the sandbox has no Java`, escape.structuredContent);

  await carol.close();
  await alice.close();
}

/** A DESTRUCTIVE apply asks the human through elicitation when the client supports it. */
async function elicitation(label, connect) {
  console.log(`${label}: elicitation`);
  // first a client that cannot elicit (one at a time: a stdio server owns its H2 file)
  const plain = await connect("carol");
  const some = (await plain.callTool({ name: "incident.list", arguments: {} })).structuredContent.result[0];
  const unconfirmable = (await plain.callTool({ name: "incident.delete", arguments: { id: some.id } })).structuredContent;
  check(unconfirmable.status === "awaiting_operator" && !("token" in unconfirmable),
    `${label} to a client that cannot elicit, a delete waits for an operator, without a token`, unconfirmable);
  await plain.close();

  const asked = [];
  let answer = "decline";
  const carol = await connect("carol", { elicitation: {} });
  carol.setRequestHandler(ElicitRequestSchema, async (request) => {
    asked.push(request.params.message);
    return { action: answer, content: {} };
  });
  const listed = await carol.callTool({ name: "incident.list", arguments: {} });
  const target = listed.structuredContent.result.find((incident) => incident.status !== "RESOLVED") ?? listed.structuredContent.result[0];
  const proposal = (await carol.callTool({ name: "incident.delete", arguments: { id: target.id } })).structuredContent;
  check(proposal.status === "awaiting_user" && proposal.effect === "destructive", `${label} delete is proposed`, proposal);

  const declined = await carol.callTool({ name: "toolgate.apply", arguments: { token: proposal.token } });
  check(declined.isError === true && declined.structuredContent?.code === "declined", `${label} declined in elicitation: not applied`,
    declined.structuredContent);
  answer = "accept";
  const accepted = await carol.callTool({ name: "toolgate.apply", arguments: { token: proposal.token } });
  check(!accepted.isError && accepted.structuredContent?.status === "applied", `${label} accepted in elicitation: applied`,
    accepted.structuredContent);
  check(asked.length === 2 && asked.every((message) => message.includes(target.id)), `${label} the human was asked twice`, asked);
  await carol.close();
}

/** The budget: calls beyond it are refused with the rate-limited error. */
async function budget(label, connect, expectHttp) {
  console.log(`${label}: budget`);
  const bob = await connect("bob");
  for (let i = 0; i < 3; i++) {
    const ok = await bob.callTool({ name: "incident.list", arguments: {} });
    check(!ok.isError, `${label} call ${i + 1} of 3 is within the budget`);
  }
  const limited = await expectError(bob.callTool({ name: "incident.list", arguments: {} }));
  if (expectHttp) {
    check(limited.error?.code === 429, `${label} over budget is HTTP 429`, limited.error?.message);
    check(String(limited.error?.message).includes(String(RATE_LIMITED)), `${label} the 429 body is the rate-limited JSON-RPC error`,
      limited.error?.message);
  } else {
    check(limited.error instanceof McpError && limited.error.code === RATE_LIMITED, `${label} over budget is JSON-RPC ${RATE_LIMITED}`,
      limited.error?.message);
    check(typeof limited.error?.data?.retryAfterSeconds === "number", `${label} the error carries retryAfterSeconds`, limited.error?.data);
  }
  await bob.close();
}

async function rawHttp(server) {
  console.log("http: raw protocol checks");
  const init = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize",
    params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } } });
  const headers = { "Content-Type": "application/json", Accept: "application/json, text/event-stream" };
  const noToken = await fetch(server.url, { method: "POST", headers, body: init });
  check(noToken.status === 401 && (noToken.headers.get("www-authenticate") ?? "").startsWith("Bearer"), "http missing token is 401 + WWW-Authenticate");
  const origin = await fetch(server.url, { method: "POST", headers: { ...headers, Authorization: "Bearer bob-token", Origin: "https://evil.example" }, body: init });
  check(origin.status === 403, "http foreign Origin is 403");
  const garbage = await fetch(server.url, { method: "POST", headers: { ...headers, Authorization: "Bearer bob-token" }, body: "{nope" });
  check(garbage.status === 400 && (await garbage.json()).error?.code === -32700, "http invalid JSON is 400 / -32700");
}

// ------------------------------------------------------------------------------------ main

async function main() {
  const dbHttp = `jdbc:h2:file:${join(work, "db", "http")}`;
  const dbHttpBudget = `jdbc:h2:file:${join(work, "db", "http-budget")}`;

  let n = 0;
  const stdioDb = (name) => ["--db", `jdbc:h2:file:${join(work, "db", name)}`];
  await governedCalls("stdio", (principal, capabilities) => {
    const name = `stdio-${principal}-${++n}`;
    return stdioClient(name, principal, stdioDb(name), capabilities);
  });
  await elicitation("stdio", (principal, capabilities) => stdioClient("stdio-elicit", principal, stdioDb("stdio-elicit"), capabilities));
  await budget("stdio", (principal) => stdioClient("stdio-budget", principal, [...stdioDb("stdio-budget"), "--budget", "3"]), false);

  const http = await startHttpServer("http", ["--db", dbHttp]);
  await governedCalls("http", (principal, capabilities) => httpClient(http, `${principal}-token`, capabilities));
  await elicitation("http", (principal, capabilities) => httpClient(http, `${principal}-token`, capabilities));
  await codemode("http", (principal) => httpClient(http, `${principal}-token`));
  await tasksWithUserConsent("http", (principal, capabilities) => httpClient(http, `${principal}-token`, capabilities),
    { check, expectError });
  await rawHttp(http);
  check(http.stdout() === "", "http server writes nothing to stdout", http.stdout());

  const limitedServer = await startHttpServer("http-budget", ["--db", dbHttpBudget, "--budget", "3"]);
  await budget("http", (principal) => httpClient(limitedServer, `${principal}-token`), true);

  const tasksServer = await startHttpServer("http-tasks", ["--db", `jdbc:h2:file:${join(work, "db", "http-tasks")}`,
    "--consent", "operator", "--console-port", "0"]);
  let consoleUrl;
  for (let i = 0; i < 100 && !consoleUrl; i++) {
    consoleUrl = tasksServer.stderr().match(/Toolgate operator console on (http:\/\/\S+\/console\/)/)?.[1];
    if (!consoleUrl) await new Promise((resolve) => setTimeout(resolve, 100));
  }
  await tasks("http", consoleUrl, (principal) => httpClient(tasksServer, `${principal}-token`), { check, expectError });
}

const watchdog = setTimeout(() => {
  console.log("FAIL the end-to-end test took longer than 240 s");
  shutdown(1);
}, 240_000);

function shutdown(code) {
  clearTimeout(watchdog);
  for (const child of processes) {
    child.kill("SIGTERM");
  }
  setTimeout(() => process.exit(code), 500);
}

main().then(() => {
  console.log(`\n${passes} passed, ${failures} failed`);
  shutdown(failures === 0 ? 0 : 1);
}, (error) => {
  console.log(`FAIL ${error?.stack ?? error}`);
  console.log(`\n${passes} passed, ${failures + 1} failed`);
  shutdown(1);
});
