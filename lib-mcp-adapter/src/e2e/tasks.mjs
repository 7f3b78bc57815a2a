// MCP tasks, end to end with the official TypeScript client (its experimental tasks API) against the demo
// server with operator consent, an operator deciding in the operator console over its HTTP API between
// the client's polls. Imported by e2e.mjs, which passes its check helpers.

import { CallToolResultSchema, CreateTaskResultSchema, ElicitRequestSchema, McpError } from "@modelcontextprotocol/sdk/types.js";

/** Signs in to the console as alice (the demo's operator); returns decide(callId, "approve" | "deny", body). */
async function operatorConsole(consoleUrl) {
  const origin = new URL(consoleUrl).origin;
  const login = await fetch(new URL("api/login", consoleUrl), {
    method: "POST",
    headers: { "Content-Type": "application/json", Origin: origin },
    body: JSON.stringify({ user: "alice", secret: "alice-token" }),
  });
  if (login.status !== 200) {
    throw new Error(`console sign-in failed: ${login.status} ${await login.text()}`);
  }
  const cookie = login.headers.get("set-cookie").split(";")[0];
  const csrf = (await login.json()).csrf;
  return async (callId, action, body = {}) => {
    const response = await fetch(new URL(`api/inbox/${encodeURIComponent(callId)}/${action}`, consoleUrl), {
      method: "POST",
      headers: { "Content-Type": "application/json", Origin: origin, Cookie: cookie, "X-Toolgate-Csrf": csrf },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: await response.json().catch(() => null) };
  };
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function createAsTask(client, name, args) {
  return client.request({ method: "tools/call", params: { name, arguments: args, task: { ttl: 60_000 } } },
    CreateTaskResultSchema);
}

export async function tasks(label, consoleUrl, connect, { check, expectError }) {
  console.log(`${label}: tasks, decided in the operator console`);
  const decide = await operatorConsole(consoleUrl);
  const carol = await connect("carol");
  const bob = await connect("bob");
  const systemId = (await carol.callTool({ name: "catalog.listSystems", arguments: {} })).structuredContent?.result?.[0]?.id;

  check(carol.getServerCapabilities()?.tasks?.requests?.tools?.call !== undefined, `${label} the server declares tasks`,
    carol.getServerCapabilities()?.tasks);
  const tools = Object.fromEntries((await carol.listTools()).tools.map((tool) => [tool.name, tool]));
  check(tools["incident.create"]?.execution?.taskSupport === "optional" && tools["run.incident.escalate"]?.execution?.taskSupport
    === "optional" && tools["incident.list"]?.execution === undefined, `${label} the tools that may wait say so`,
    { create: tools["incident.create"]?.execution, list: tools["incident.list"]?.execution });

  // approve: the client's own task loop (callToolStream) polls, then waits on tasks/result; the operator approves meanwhile
  const messages = [];
  let approval;
  for await (const message of carol.experimental.tasks.callToolStream(
    { name: "incident.create", arguments: { systemId, title: `E2E ${label} task`, severity: "LOW" } },
    CallToolResultSchema, { task: { ttl: 60_000 } })) {
    messages.push(message);
    if (message.type === "taskCreated") {
      const callId = message.task.taskId.replace(/^call:/, "");
      approval = sleep(700).then(() => decide(callId, "approve"));
    }
  }
  const approved = await approval;
  const created = messages.find((m) => m.type === "taskCreated")?.task;
  const statuses = messages.filter((m) => m.type === "taskStatus").map((m) => m.task.status);
  const final = messages.at(-1);
  check(created?.status === "input_required" && created.taskId.startsWith("call:"), `${label} the call became a task awaiting consent`,
    created);
  check(approved?.status === 200, `${label} the operator approves in the console`, approved);
  check(statuses[0] === "input_required", `${label} the client saw input_required while it waited`, statuses);
  check(final?.type === "result" && final.result.isError === false && final.result.structuredContent?.decision === "applied"
    && final.result.structuredContent?.result?.title === `E2E ${label} task`
    && final.result._meta?.["io.modelcontextprotocol/related-task"]?.taskId === created?.taskId,
  `${label} tasks/result answers the applied change`, final);
  check(!JSON.stringify(messages).includes("propose:"), `${label} no token reached the client`);
  const done = await carol.experimental.tasks.getTask(created.taskId);
  check(done.status === "completed", `${label} the task reads completed`, done);

  // decline between polls
  const declinedTask = (await createAsTask(carol, "incident.create",
    { systemId, title: `E2E ${label} declined`, severity: "LOW" })).task;
  const waiting = await carol.experimental.tasks.getTask(declinedTask.taskId);
  check(waiting.status === "input_required" && waiting.statusMessage.includes("an operator decides"),
    `${label} tasks/get: input_required, what it waits for`, waiting);
  const denied = await decide(declinedTask.taskId.replace(/^call:/, ""), "deny", { reason: "not in this quarter" });
  check(denied.status === 200, `${label} the operator declines in the console`, denied);
  const failed = await carol.experimental.tasks.getTask(declinedTask.taskId);
  check(failed.status === "failed" && failed.statusMessage.includes("not in this quarter"), `${label} a declined task failed, with the reason`,
    failed);
  const declinedResult = await carol.experimental.tasks.getTaskResult(declinedTask.taskId, CallToolResultSchema);
  check(declinedResult.isError === true && declinedResult.structuredContent?.decision === "declined",
    `${label} its result says declined`, declinedResult);

  // the client cancels; a terminal task cannot be cancelled; another principal sees none of it
  const cancelledTask = (await createAsTask(carol, "incident.create",
    { systemId, title: `E2E ${label} cancelled`, severity: "LOW" })).task;
  const cancelled = await carol.experimental.tasks.cancelTask(cancelledTask.taskId);
  check(cancelled.status === "cancelled", `${label} tasks/cancel withdraws the proposal`, cancelled);
  const again = await expectError(carol.experimental.tasks.cancelTask(cancelledTask.taskId));
  check(again.error instanceof McpError && again.error.code === -32602, `${label} a cancelled task cannot be cancelled again`,
    again.error?.message);
  const listed = (await carol.experimental.tasks.listTasks()).tasks.map((task) => task.taskId);
  check([created.taskId, declinedTask.taskId, cancelledTask.taskId].every((id) => listed.includes(id)),
    `${label} tasks/list holds carol's tasks`, listed);
  const foreign = await expectError(bob.experimental.tasks.getTask(created.taskId));
  check(foreign.error instanceof McpError && foreign.error.code === -32602, `${label} another principal's task is unknown`,
    foreign.error?.message);
  check((await bob.experimental.tasks.listTasks()).tasks.length === 0, `${label} bob lists no tasks`);

  // a run is one task through its pauses
  const runTask = (await createAsTask(carol, "run.incident.escalate",
    { systemId, title: `E2E ${label} escalation task`, severity: "HIGH" })).task;
  let run = await carol.experimental.tasks.getTask(runTask.taskId);
  for (let steps = 0; run.status === "input_required" && steps < 5; steps++) {
    const pending = run._meta?.["dev.toolgate/pending"]?.[0];
    await decide(pending.callId, "approve");
    run = await carol.experimental.tasks.getTask(runTask.taskId);
  }
  const runResult = await carol.experimental.tasks.getTaskResult(runTask.taskId, CallToolResultSchema);
  check(run.status === "completed" && runResult.structuredContent?.status === "completed"
    && runResult.structuredContent?.result?.severity === "CRITICAL", `${label} the run's task completes after each step's approval`,
  { run, runResult });
  await carol.close();
  await bob.close();
}

/** With the user's consent (the demo's default): while tasks/result waits, the server asks the user through elicitation. */
export async function tasksWithUserConsent(label, connect, { check }) {
  console.log(`${label}: tasks, the user consents through elicitation`);
  const carol = await connect("carol", { elicitation: {} });
  const asked = [];
  let answer = "accept";
  carol.setRequestHandler(ElicitRequestSchema, async (request) => {
    asked.push(request.params);
    return { action: answer };
  });
  const systemId = (await carol.callTool({ name: "catalog.listSystems", arguments: {} })).structuredContent?.result?.[0]?.id;
  const outcomes = [];
  for (const action of ["accept", "decline"]) {
    answer = action;
    const messages = [];
    for await (const message of carol.experimental.tasks.callToolStream(
      { name: "incident.create", arguments: { systemId, title: `E2E ${label} consented ${action}`, severity: "LOW" } },
      CallToolResultSchema, { task: { ttl: 60_000 } })) {
      messages.push(message);
    }
    outcomes.push({ task: messages[0]?.task, last: messages.at(-1) });
  }
  const [accepted, declined] = outcomes;
  check(asked.length === 2 && asked[0]._meta?.["io.modelcontextprotocol/related-task"]?.taskId === accepted.task?.taskId
    && asked[0].message.includes(`E2E ${label} consented accept`), `${label} the user is asked, the question tied to its task`, asked[0]);
  check(accepted.last?.type === "result" && accepted.last.result.structuredContent?.decision === "applied"
    && accepted.last.result.structuredContent?.decidedBy === "user", `${label} accepting applies the change`, accepted.last);
  check(declined.last?.type === "result" && declined.last.result.isError === true
    && declined.last.result.structuredContent?.decision === "declined", `${label} declining withdraws it`, declined.last);
  const state = await carol.experimental.tasks.getTask(declined.task.taskId);
  check(state.status === "cancelled", `${label} a task the user declined reads cancelled`, state);
  check(!JSON.stringify(outcomes).includes("propose:"), `${label} no token reached the client`);
  await carol.close();
}
