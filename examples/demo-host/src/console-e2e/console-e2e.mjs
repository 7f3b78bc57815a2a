// End-to-end test of the operator console (lib-console) in a real browser: headless Chromium driven by
// playwright-core, against the demo MCP server's console (McpDemoServer --console-port). carol's
// proposals are created the way an agent creates them: MCP tools/call over Streamable HTTP.
//
// Usage: node console-e2e.mjs --console http://127.0.0.1:8766/console/ --mcp http://127.0.0.1:8765/mcp
//          [--out DIR] [--update-docs] [--docs DIR]
// Environment: CONSOLE_URL, MCP_URL, CONSOLE_E2E_OUT (default target/console-e2e), CHROMIUM
// (default /usr/bin/chromium). Exits 1 when any check fails. run.sh in this folder starts the host.

import {chromium} from 'playwright-core';
import fs from 'node:fs';
import path from 'node:path';

// ---- options ------------------------------------------------------------------------------------

const argv = process.argv.slice(2);
function option(name, fallback) {
  const i = argv.indexOf(name);
  if (i >= 0 && i + 1 < argv.length) return argv[i + 1];
  const eq = argv.find((a) => a.startsWith(name + '='));
  return eq ? eq.slice(name.length + 1) : fallback;
}
const CONSOLE = new URL(option('--console', process.env.CONSOLE_URL || 'http://127.0.0.1:8766/console/')).toString();
const MCP = option('--mcp', process.env.MCP_URL || 'http://127.0.0.1:8765/mcp');
const OUT = path.resolve(option('--out', process.env.CONSOLE_E2E_OUT || 'target/console-e2e'));
const UPDATE_DOCS = argv.includes('--update-docs');
const DOCS = path.resolve(option('--docs', path.join(process.env.TOOLGATE_ROOT || process.cwd(), 'docs')));
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const ORIGIN = new URL(CONSOLE).origin;
const api = (p) => new URL(p, CONSOLE).toString();

// ---- checks -------------------------------------------------------------------------------------

let passed = 0;
const failures = [];
function check(name, ok, detail) {
  if (ok) {
    passed++;
    console.log(`  ok   ${name}`);
  } else {
    failures.push(name);
    console.log(`  FAIL ${name}${detail !== undefined ? ' -- ' + (typeof detail === 'string' ? detail : JSON.stringify(detail)) : ''}`);
  }
  return !!ok;
}
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
/** Polls fn until it returns something truthy (returned) or the time is up (null). */
async function eventually(fn, timeout = 10000, interval = 100) {
  const end = Date.now() + timeout;
  for (;;) {
    try {
      const value = await fn();
      if (value) return value;
    } catch (e) {
      // not yet
    }
    if (Date.now() > end) return null;
    await sleep(interval);
  }
}
function section(title) {
  console.log(`\n${title}`);
}

// ---- a minimal MCP client (Streamable HTTP, JSON or SSE answers) ---------------------------------

async function mcpClient(token) {
  let session = null;
  let id = 0;
  async function post(message) {
    const headers = {'Content-Type': 'application/json', Accept: 'application/json, text/event-stream',
      Authorization: `Bearer ${token}`};
    if (session) {
      headers['Mcp-Session-Id'] = session;
      headers['MCP-Protocol-Version'] = '2025-11-25';
    }
    const response = await fetch(MCP, {method: 'POST', headers, body: JSON.stringify(message)});
    if (!session && response.headers.get('mcp-session-id')) session = response.headers.get('mcp-session-id');
    const text = await response.text();
    if (message.id === undefined) return null;
    if (!response.ok) throw new Error(`MCP ${message.method}: HTTP ${response.status} ${text.slice(0, 200)}`);
    let json = text;
    if ((response.headers.get('content-type') || '').startsWith('text/event-stream')) {
      const data = text.split(/\r?\n/).filter((l) => l.startsWith('data:')).map((l) => l.slice(5).trim())
        .filter((l) => l.length > 0).map((l) => JSON.parse(l)).filter((m) => m.id === message.id);
      if (!data.length) throw new Error(`MCP ${message.method}: no answer in the event stream`);
      return data[data.length - 1];
    }
    json = JSON.parse(text);
    return json;
  }
  const init = await post({jsonrpc: '2.0', id: ++id, method: 'initialize', params: {protocolVersion: '2025-11-25',
    capabilities: {}, clientInfo: {name: 'toolgate-console-e2e', version: '1'}}});
  if (!init.result) throw new Error('MCP initialize failed: ' + JSON.stringify(init));
  await post({jsonrpc: '2.0', method: 'notifications/initialized'});
  return {
    async call(name, args) {
      const answer = await post({jsonrpc: '2.0', id: ++id, method: 'tools/call', params: {name, arguments: args}});
      if (answer.error) throw new Error(`tools/call ${name}: ${JSON.stringify(answer.error)}`);
      const result = answer.result || {};
      if (result.structuredContent) return result.structuredContent;
      const text = (result.content || []).find((c) => c.type === 'text');
      return text ? JSON.parse(text.text) : result;
    },
  };
}

/** Every value of key `key` anywhere in a JSON value. */
function valuesOf(value, key, out = []) {
  if (Array.isArray(value)) value.forEach((v) => valuesOf(v, key, out));
  else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if (k === key) out.push(v);
      valuesOf(v, key, out);
    }
  }
  return out;
}

// ---- browser helpers ----------------------------------------------------------------------------

const watched = [];
function watch(page, label) {
  const w = {label, dialogs: [], errors: [], csp: []};
  page.on('dialog', (dialog) => {
    w.dialogs.push(dialog.message());
    dialog.dismiss().catch(() => {});
  });
  page.on('pageerror', (error) => w.errors.push(String(error)));
  page.on('console', (msg) => {
    const text = msg.text();
    if (/Content Security Policy|Refused to (execute|load|apply)/i.test(text)) w.csp.push(text);
  });
  watched.push(w);
  return w;
}

async function login(page, user, secret) {
  await page.goto(CONSOLE);
  await page.getByTestId('login-user').waitFor({state: 'visible', timeout: 15000});
  await page.getByTestId('login-user').fill(user);
  await page.getByTestId('login-secret').fill(secret);
  await page.getByTestId('login-submit').click();
}

/** The durations a card's expiry reads as: "expires in 2 d 3 h", "23 h 59 min", "4 min 10 s" or "9 s". */
const EXPIRY = /^expires in (?:(\d+) d (\d+) h|(\d+) h (\d+) min|(\d+) min (\d+) s|(\d+) s)$/;
/** Seconds left in an expiry text, to the precision it shows (NaN for anything else). */
function secondsLeft(expiry) {
  const m = EXPIRY.exec(expiry || '');
  if (!m) return NaN;
  const n = m.slice(1).map((v) => Number(v || 0));
  return n[0] * 86400 + n[1] * 3600 + n[2] * 3600 + n[3] * 60 + n[4] * 60 + n[5] + n[6];
}
const card = (page, callId) => page.locator(`[data-testid="card"][data-call-id="${callId}"]`);
const text = async (locator) => ((await locator.textContent({timeout: 2000})) || '').trim();
async function settledStatus(page, callId, timeout = 10000) {
  return eventually(async () => {
    const t = await text(card(page, callId).getByTestId('card-status'));
    return t && !/Working/.test(t) ? t : null;
  }, timeout);
}
async function inboxIds(page) {
  return page.locator('[data-testid="card"]').evaluateAll((cards) => cards.map((c) => c.getAttribute('data-call-id')));
}
async function dismissToasts(page) {
  for (const close of await page.locator('[data-testid="toast"] button').all()) await close.click().catch(() => {});
}
async function diffRows(locator) {
  return locator.locator('[data-testid="card-diff"] tbody tr')
    .evaluateAll((rows) => rows.map((r) => Array.from(r.children).map((c) => c.textContent)));
}

// ---- the test -----------------------------------------------------------------------------------

async function main() {
  fs.mkdirSync(OUT, {recursive: true});
  console.log(`console-e2e: console ${CONSOLE}, MCP ${MCP}, Chromium ${CHROMIUM}, screenshots in ${OUT}`);
  const stamp = new Date().toISOString().slice(11, 19);

  section('HTTP: headers and assets');
  const page0 = await fetch(CONSOLE);
  const csp = page0.headers.get('content-security-policy') || '';
  check('GET console/ answers 200 with HTML', page0.status === 200 && /text\/html/.test(page0.headers.get('content-type') || ''),
    `${page0.status} ${page0.headers.get('content-type')}`);
  check("CSP present: script-src 'self', style-src 'self', no unsafe-inline/eval, frame-ancestors 'none'",
    /script-src 'self'(;|$)/.test(csp) && /style-src 'self'(;|$)/.test(csp) && /frame-ancestors 'none'/.test(csp)
    && /default-src 'none'/.test(csp) && !/unsafe-/.test(csp), csp);
  check('X-Content-Type-Options nosniff, X-Frame-Options DENY, Referrer-Policy no-referrer',
    page0.headers.get('x-content-type-options') === 'nosniff' && page0.headers.get('x-frame-options') === 'DENY'
    && page0.headers.get('referrer-policy') === 'no-referrer',
    [page0.headers.get('x-content-type-options'), page0.headers.get('x-frame-options'), page0.headers.get('referrer-policy')]);
  const html = await page0.text();
  check('index.html has no inline script, style or event handler',
    !/<script(?![^>]*\bsrc=)[^>]*>/i.test(html) && !/<style/i.test(html) && !/\sstyle=/i.test(html) && !/\son[a-z]+=/i.test(html));
  const bare = await fetch(CONSOLE.replace(/\/$/, ''), {redirect: 'manual'});
  check('the mount without the slash redirects to it', bare.status >= 301 && bare.status <= 308
    && new URL(bare.headers.get('location') || '', CONSOLE.replace(/\/$/, '')).toString() === CONSOLE,
    `${bare.status} ${bare.headers.get('location')}`);
  let total = Buffer.byteLength(html);
  for (const asset of ['assets/console.js', 'assets/console.css', 'assets/favicon.svg']) {
    const r = await fetch(api(asset));
    const body = await r.text();
    total += Buffer.byteLength(body);
    check(`${asset} served (200, CSP, nosniff)`, r.status === 200 && !!r.headers.get('content-security-policy')
      && r.headers.get('x-content-type-options') === 'nosniff', r.status);
    if (asset.endsWith('.js')) {
      check('console.js uses no innerHTML/outerHTML/insertAdjacentHTML/document.write/eval/new Function',
        !/innerHTML|outerHTML|insertAdjacentHTML|document\.write|\beval\s*\(|new\s+Function/.test(body));
    }
  }
  check(`the assets are small (${total} bytes < 60 KB)`, total < 60 * 1024, total);
  const anon = await fetch(api('api/inbox'));
  check('api/inbox without a session: 401 with Cache-Control no-store', anon.status === 401
    && /no-store/.test(anon.headers.get('cache-control') || ''), `${anon.status} ${anon.headers.get('cache-control')}`);

  section('carol proposes through MCP (approve mode)');
  const carol = await mcpClient('carol-token');
  const inc1 = await carol.call('incident.get', {id: 'INC-1'});
  const oldTitle = valuesOf(inc1, 'title')[0];
  check('carol reads INC-1 through MCP', typeof oldTitle === 'string', inc1);
  const newTitle = `Orders API degraded ${stamp}`;
  const oldSeverity = valuesOf(inc1, 'severity')[0];
  const newSeverity = oldSeverity === 'CRITICAL' ? 'HIGH' : 'CRITICAL';
  const update = await carol.call('incident.update', {id: 'INC-1', title: newTitle, severity: newSeverity});
  check('incident.update is proposed, not run (awaiting_user)', update.status === 'awaiting_user' && !!update.callId, update);
  const raceTitle = `Checkout latency above 2 s ${stamp}`;
  const race = await carol.call('incident.create', {systemId: 'web', title: raceTitle, severity: 'HIGH'});
  check('incident.create is proposed', race.status === 'awaiting_user' && !!race.callId, race);

  section('alice signs in (approver)');
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync'],
  });
  try {
    const ctxA = await browser.newContext({viewport: {width: 1280, height: 860}, deviceScaleFactor: 1});
    const pageA = await ctxA.newPage();
    const wA = watch(pageA, 'alice-1');
    await login(pageA, 'alice', 'wrong-secret');
    const loginError = await eventually(async () => (await pageA.getByTestId('login-error').isVisible()) && text(pageA.getByTestId('login-error')));
    check('a wrong secret shows an inline login error', !!loginError, loginError);
    await pageA.getByTestId('login-secret').fill('alice-token');
    await pageA.getByTestId('login-submit').click();
    const who = await eventually(async () => (await pageA.getByTestId('whoami').isVisible()) && text(pageA.getByTestId('whoami')));
    check('alice is signed in (whoami)', who && who.includes('alice'), who);
    check('document.cookie does not show the session cookie (HttpOnly)',
      !(await pageA.evaluate(() => document.cookie)).includes('toolgate_console'));
    const cookie = (await ctxA.cookies()).find((c) => c.name === 'toolgate_console');
    check('session cookie is HttpOnly, SameSite=Strict, scoped to the mount', cookie && cookie.httpOnly && cookie.sameSite === 'Strict'
      && cookie.path === new URL(CONSOLE).pathname, cookie);

    section('inbox: carol\'s card with its diff');
    const cardU = card(pageA, update.callId);
    check('carol\'s incident.update card is shown', await eventually(() => cardU.isVisible()));
    check('card tool is incident.update', (await text(cardU.getByTestId('card-tool'))) === 'incident.update');
    check('card summary names INC-1', (await text(cardU.getByTestId('card-summary'))).includes('INC-1'));
    const rows = await diffRows(cardU);
    const norm = (p) => String(p).replace(/^\//, '');
    const titleRow = rows.find((r) => norm(r[0]) === 'title');
    const severityRow = rows.find((r) => norm(r[0]) === 'severity');
    check('diff shows title before -> after', titleRow && titleRow[1] === oldTitle && titleRow[2] === newTitle, rows);
    check(`diff shows severity ${oldSeverity} -> ${newSeverity}`, severityRow && severityRow[1] === oldSeverity && severityRow[2] === newSeverity, rows);
    check('card shows proposer carol', (await text(cardU.getByTestId('card-proposer'))).includes('carol'));
    check('effect badge says mutate', (await text(cardU.getByTestId('card-effect'))) === 'mutate');
    const served = ((await (await ctxA.request.get(api('api/inbox'))).json()).cards || []).find((c) => c.callId === update.callId) || {};
    const offered = await cardU.getByTestId('always-scope').locator('option')
      .evaluateAll((options) => options.map((o) => o.value)).catch(() => []);
    check('"Approve always" is offered exactly when the server allows it, with its scopes',
      (await cardU.getByTestId('approve-always').count()) === (served.alwaysAllowed ? 1 : 0)
      && JSON.stringify(offered) === JSON.stringify(served.alwaysAllowed ? served.scopes || [] : []),
      {alwaysAllowed: served.alwaysAllowed, scopes: served.scopes, offered});
    const expiryOf = () => text(cardU.getByTestId('card-expiry'));
    const expiry1 = await expiryOf();
    // the countdown ticks each second; a loaded machine may delay a tick, so wait up to 5 s for the next
    const expiry2 = await eventually(async () => {
      const t = await expiryOf();
      return t !== expiry1 ? t : null;
    }, 5000);
    check('expiry reads as a duration ("expires in 9 min 58 s"), then fewer seconds',
      /^expires in \d+ min \d+ s$/.test(expiry1) && secondsLeft(expiry2) < secondsLeft(expiry1), [expiry1, expiry2]);
    // The page learns the server's clock from each inbox answer. Answers that arrive 1.8 s late (a slow
    // network, a loaded host) must not set the countdowns back by the delay. The route drops
    // If-None-Match so that every poll gets a full answer with the server's "now".
    await pageA.route('**/api/inbox', async (route) => {
      const headers = {...route.request().headers()};
      delete headers['if-none-match'];
      const response = await route.fetch({headers});
      await sleep(1800);
      await route.fulfill({response});
    });
    const countdown = [];
    for (const end = Date.now() + 6000; Date.now() < end;) {
      countdown.push(secondsLeft(await expiryOf()));
      await sleep(200);
    }
    await pageA.unrouteAll({behavior: 'wait'}); // lets the delayed answers in flight arrive
    check('slow inbox answers do not set the countdown back', countdown.every((v, i) => Number.isFinite(v)
      && (i === 0 || v <= countdown[i - 1])) && countdown[countdown.length - 1] < countdown[0], countdown);
    const order = await inboxIds(pageA);
    check('newest first (the later proposal above the earlier)', order.indexOf(race.callId) >= 0
      && order.indexOf(race.callId) < order.indexOf(update.callId), order);
    check('inbox count shows the waiting cards', Number(await text(pageA.getByTestId('inbox-count'))) >= 2);
    await dismissToasts(pageA);
    const inboxShot = path.join(OUT, 'console-inbox.png');
    await pageA.screenshot({path: inboxShot});
    check('screenshot of the inbox taken', fs.statSync(inboxShot).size > 10000, inboxShot);
    await pageA.evaluate(() => {
      window.__noReload = 'still here';
    });

    section('live update and XSS: a hostile title arrives without reload');
    const xssTitle = '<img src=x onerror="window.__xss=1;alert(1)"><script>window.__xss=2;alert(2)</script>';
    const xss = await carol.call('incident.create', {systemId: 'db', title: xssTitle, severity: 'LOW'});
    check('hostile incident.create is proposed', xss.status === 'awaiting_user', xss);
    const cardX = card(pageA, xss.callId);
    check('the new card appears without reloading (poll)', await eventually(() => cardX.isVisible(), 8000));
    check('the page was not reloaded', (await pageA.evaluate(() => window.__noReload)) === 'still here');
    check('the hostile title is shown as text', (await text(cardX.getByTestId('card-summary'))).includes('<img src=x onerror='));
    await cardX.locator('details.payload summary').click();
    check('the payload shows <script> as text', (await text(cardX.getByTestId('card-payload'))).includes('<script>window.__xss=2'));
    check('no img[src=x] element exists', (await pageA.locator('img[src="x"]').count()) === 0);
    check('only console.js is a script element', (await pageA.locator('script').count()) === 1);
    await sleep(500);
    check('no script from the data ran (no dialog, no flag)', wA.dialogs.length === 0
      && (await pageA.evaluate(() => window.__xss)) === undefined, wA.dialogs);

    section('approve carol\'s update');
    await cardU.getByTestId('approve-once').click();
    const approved = await settledStatus(pageA, update.callId);
    check('card says "approved: applied"', approved === 'approved: applied', approved);
    check('a toast says approved', !!(await eventually(() => pageA.getByTestId('toast').filter({hasText: 'approved: applied'}).count())));
    check('the decided card leaves the inbox', await eventually(async () => (await cardU.count()) === 0, 15000));
    const inc1After = await carol.call('incident.get', {id: 'INC-1'});
    check('the change really happened (INC-1 has the new title)', valuesOf(inc1After, 'title')[0] === newTitle, inc1After);

    section('a stale preview: two changes of INC-1 from the same state, one approved first');
    const rename = await carol.call('incident.update', {id: 'INC-1', title: `Orders API down ${stamp}`});
    const raise = await carol.call('incident.update', {id: 'INC-1', status: 'MITIGATED'});
    check('both changes are proposed', rename.status === 'awaiting_user' && raise.status === 'awaiting_user', [rename, raise]);
    const cardRaise = card(pageA, raise.callId);
    check('the second card is shown, not marked stale yet', await eventually(() => cardRaise.isVisible())
      && (await cardRaise.getByTestId('card-stale').count()) === 0);
    const renamed = await pageA.evaluate(async (url) => {
      const csrf = (await (await fetch('api/session')).json()).csrf;
      const r = await fetch(url, {method: 'POST', headers: {'Content-Type': 'application/json', 'X-Toolgate-Csrf': csrf},
        body: JSON.stringify({always: false, scope: null})});
      return {status: r.status, body: await r.json()};
    }, `api/inbox/${encodeURIComponent(rename.callId)}/approve`);
    check('another operator approves the rename first', renamed.status === 200 && renamed.body.outcome === 'approved', renamed);
    const staleMark = await eventually(async () => (await cardRaise.getByTestId('card-stale').isVisible())
      && text(cardRaise.getByTestId('card-stale')), 10000);
    check('before anyone clicks, the other card says its preview is out of date and what changed',
      !!staleMark && staleMark.includes('/before/title') && staleMark.includes(`Orders API down ${stamp}`), staleMark);
    await cardRaise.getByTestId('approve-once').click();
    const staleStatus = await settledStatus(pageA, raise.callId);
    check('approving it anyway says stale, nothing ran', !!staleStatus && staleStatus.startsWith('stale, nothing ran'), staleStatus);
    const inc1Stale = await carol.call('incident.get', {id: 'INC-1'});
    check('INC-1 holds the rename and not the stale change', valuesOf(inc1Stale, 'title')[0] === `Orders API down ${stamp}`
      && valuesOf(inc1Stale, 'status')[0] !== 'MITIGATED', inc1Stale);

    section('deny the hostile proposal with a reason (keyboard)');
    await cardX.getByTestId('deny').focus();
    await pageA.keyboard.press('Enter');
    const reasonBox = cardX.getByTestId('deny-reason');
    check('Deny opens a reason box (keyboard)', await eventually(() => reasonBox.isVisible()));
    await cardX.getByTestId('deny-confirm').click();
    check('an empty reason is refused in the page', (await eventually(() => cardX.getByText('A reason is required.').isVisible(), 3000)) !== null);
    check('...and the card is still undecided', (await cardX.getByTestId('card-status').isVisible()) === false);
    const reason = `Not a real system name ${stamp}`;
    await reasonBox.fill(reason);
    await reasonBox.press('Control+Enter');
    const denied = await settledStatus(pageA, xss.callId);
    check('card says "denied"', denied === 'denied', denied);
    const deniedLine = card(pageA, xss.callId).getByTestId('card-status');
    const deniedClass = await deniedLine.getAttribute('class', {timeout: 2000}).catch(() => '');
    check('the denied card is styled as a refusal, not a success', /\bstatus-refused\b/.test(deniedClass || '')
      && !/\bstatus-ok\b/.test(deniedClass || ''), deniedClass);
    const deniedToast = pageA.getByTestId('toast').filter({hasText: /^denied/});
    check('...and so is its toast', !!(await eventually(async () => (await deniedToast.count()) > 0
      && !/toast-ok/.test((await deniedToast.first().getAttribute('class')) || ''))));
    check('the denied card leaves the inbox', await eventually(async () => (await cardX.count()) === 0, 15000));

    section('two operators decide the same card: exactly one wins');
    const ctxB = await browser.newContext({viewport: {width: 1280, height: 860}});
    const pageB = await ctxB.newPage();
    const wB = watch(pageB, 'alice-2');
    await login(pageB, 'alice', 'alice-token');
    const cardRA = card(pageA, race.callId);
    const cardRB = card(pageB, race.callId);
    check('both browsers show the same card', !!(await eventually(async () => (await cardRA.isVisible()) && (await cardRB.isVisible()))));
    await Promise.all([cardRA.getByTestId('approve-once').click(), cardRB.getByTestId('approve-once').click()]);
    const [sA, sB] = await Promise.all([settledStatus(pageA, race.callId), settledStatus(pageB, race.callId)]);
    const wins = [sA, sB].filter((s) => s === 'approved: applied').length;
    // the loser waits (up to 2 s) for the winner's tool to finish, so it reads who applied it
    const losses = [sA, sB].filter((s) => s && /^already decided: applied by alice$/.test(s)).length;
    check('exactly one approval wins, the other sees "already decided: applied by alice"', wins === 1 && losses === 1, [sA, sB]);
    const loser = sA === 'approved: applied' ? pageB : pageA;
    check('the loser gets an "already decided" toast', !!(await eventually(() => loser.getByTestId('toast').filter({hasText: 'already decided'}).count())));
    check('the loser\'s inbox refreshes (the card goes)', await eventually(async () => (await card(loser, race.callId).count()) === 0, 15000));
    const list = await carol.call('incident.list', {});
    const created = valuesOf(list, 'title').filter((t) => t === raceTitle).length;
    check('the incident was created exactly once', created === 1, created);
    const decided = await ctxB.request.get(api('api/audit?tool=incident.create&status=applied&limit=200'));
    const decidedJson = decided.ok() ? await decided.json() : {};
    check('the audit holds the raced call once, applied', (decidedJson.records || []).filter((r) => r.callId === race.callId).length === 1,
      decided.status());

    section('edit the payload (superseding proposal)');
    const editTitle = `Search indexing stalled ${stamp}`;
    const toEdit = await carol.call('incident.create', {systemId: 'api', title: 'Search slow', severity: 'LOW'});
    const cardE = card(pageA, toEdit.callId);
    check('the card to edit appears', await eventually(() => cardE.isVisible(), 8000));
    await cardE.getByTestId('edit').click();
    const area = cardE.getByTestId('edit-payload');
    const shown = JSON.parse(await area.inputValue());
    check('the edit box holds the payload JSON', shown.title === 'Search slow' && shown.systemId === 'api', shown);
    await area.fill(JSON.stringify(Object.assign({}, shown, {title: 'x'})));
    await cardE.getByTestId('edit-save').click();
    const editError = await eventually(async () => (await cardE.getByTestId('edit-error').isVisible()) && text(cardE.getByTestId('edit-error')));
    check('arguments that do not fit the schema are refused with the message', !!editError, editError);
    check('...and the card stays undecided', (await cardE.getByTestId('card-status').textContent()).includes('edited') === false);
    await area.fill(JSON.stringify(Object.assign({}, shown, {title: editTitle, severity: 'MEDIUM'})));
    await cardE.getByTestId('edit-save').click();
    const edited = await settledStatus(pageA, toEdit.callId);
    check('card says "edited: new proposal ..."', /^edited: new proposal/.test(edited || ''), edited);
    const replacementId = await eventually(async () => {
      const r = await ctxA.request.get(api('api/inbox'));
      const j = await r.json();
      const c = (j.cards || []).find((x) => x.supersedes === toEdit.callId);
      return c && c.payload && c.payload.title === editTitle ? c.callId : null;
    });
    check('the superseding proposal is in the inbox with the new payload', !!replacementId);
    if (replacementId) {
      check('...and shown as a card', await eventually(() => card(pageA, replacementId).isVisible(), 8000));
    }

    section('forged requests are refused');
    const target = replacementId || toEdit.callId;
    const csrfToken = await pageA.evaluate(async () => (await (await fetch('api/session')).json()).csrf);
    const inPage = (headers) => pageA.evaluate(async ({url, headers}) => {
      const r = await fetch(url, {method: 'POST', headers, body: JSON.stringify({always: false, scope: null})});
      let body = null;
      try {
        body = await r.json();
      } catch (e) {
        // none
      }
      return {status: r.status, body};
    }, {url: `api/inbox/${encodeURIComponent(target)}/approve`, headers});
    const noCsrf = await inPage({'Content-Type': 'application/json'});
    check('POST without X-Toolgate-Csrf: 403 csrf', noCsrf.status === 403 && noCsrf.body && noCsrf.body.error === 'csrf', noCsrf);
    const badCsrf = await inPage({'Content-Type': 'application/json', 'X-Toolgate-Csrf': 'forged-' + csrfToken});
    check('POST with a forged X-Toolgate-Csrf: 403 csrf', badCsrf.status === 403 && badCsrf.body && badCsrf.body.error === 'csrf', badCsrf);
    const crossOrigin = await ctxA.request.post(api(`api/inbox/${encodeURIComponent(target)}/approve`), {
      headers: {'Content-Type': 'application/json', 'X-Toolgate-Csrf': csrfToken, Origin: 'http://evil.example'},
      data: JSON.stringify({always: false, scope: null}),
    });
    const crossBody = await crossOrigin.json().catch(() => ({}));
    check('POST from another Origin (with the right token): 403 origin', crossOrigin.status() === 403 && crossBody.error === 'origin',
      [crossOrigin.status(), crossBody]);
    const formPost = await ctxA.request.post(api(`api/inbox/${encodeURIComponent(target)}/approve`), {
      headers: {'Content-Type': 'application/x-www-form-urlencoded', 'X-Toolgate-Csrf': csrfToken, Origin: ORIGIN},
      data: 'always=false',
    });
    check('POST that is not JSON (a form): refused 415', formPost.status() === 415, formPost.status());
    const stillThere = await (await ctxA.request.get(api('api/inbox'))).json();
    check('the refused requests changed nothing (card still pending)', (stillThere.cards || []).some((c) => c.callId === target));
    check('a same-origin POST with the token works (control)', (await inPage({'Content-Type': 'application/json', 'X-Toolgate-Csrf': csrfToken}))
      .status === 200);

    section('a run rolled back: its step reads reverted, the revert as a revert of it');
    const rollbackTitle = `Opened, then rolled back ${stamp}`;
    // the demo plugin's program: reads the catalog, opens an incident (consent), raises it (consent again)
    const ran = await carol.call('run.incident.escalate', {systemId: 'web', title: rollbackTitle, severity: 'HIGH'});
    const runId = valuesOf(ran, 'executionId')[0];
    const stepId = (valuesOf(ran, 'pending')[0] || []).map((p) => p.callId)[0];
    check('run.incident.escalate pauses at incident.create', !!runId && !!stepId
      && JSON.stringify(ran).includes('incident.create'), ran);
    const stepApproved = await pageA.evaluate(async (url) => {
      const csrf = (await (await fetch('api/session')).json()).csrf;
      const r = await fetch(url, {method: 'POST', headers: {'Content-Type': 'application/json', 'X-Toolgate-Csrf': csrf},
        body: JSON.stringify({always: false, scope: null})});
      return {status: r.status, body: await r.json()};
    }, `api/inbox/${encodeURIComponent(stepId)}/approve`);
    check('alice approves the step; the run goes on to its next step', stepApproved.status === 200
      && stepApproved.body.outcome === 'resumed', stepApproved);
    const rolled = await carol.call('toolgate.rollback', {executionId: runId});
    check('carol rolls the run back: the incident it opened is reverted', rolled.status === 'rolled_back' && rolled.reverted === 1,
      rolled);

    section('audit');
    await pageA.getByTestId('nav-audit').click();
    const rowStep = pageA.locator(`[data-testid="audit-row"][data-call-id="${stepId}"]`);
    check('the undone step reads reverted, not applied', (await eventually(async () =>
      (await rowStep.getAttribute('data-status', {timeout: 1000})) === 'reverted')) !== null);
    const revertLink = rowStep.getByTestId('audit-reverted-by').locator('a');
    const revertId = (await revertLink.getAttribute('title').catch(() => null)) || '';
    check('...with a link to its revert', !!revertId && (await revertLink.getAttribute('href')) === `#call-${encodeURIComponent(revertId)}`,
      revertId);
    const rowRevert = pageA.locator(`[data-testid="audit-row"][data-call-id="${revertId}"]`);
    check('the revert reads applied, as the revert of the step', (await rowRevert.getAttribute('data-status')) === 'applied'
      && (await text(rowRevert.getByTestId('audit-revert-badge'))) === 'revert'
      && (await text(rowRevert.getByTestId('audit-reverts'))).startsWith('revert of ')
      && (await rowRevert.getByTestId('audit-reverts').locator('a').getAttribute('title')) === stepId);
    const tones = await pageA.locator('[data-testid="audit-status"]').evaluateAll((badges) => badges.map((b) =>
      [b.textContent, b.getAttribute('data-tone'), getComputedStyle(b).backgroundColor]));
    const toneOf = (status) => tones.find((t) => t[0] === status);
    check('statuses by tone: applied green, rejected red, reverted neutral; no refusal or undone call shown as a success',
      toneOf('applied') && toneOf('applied')[1] === 'ok' && toneOf('rejected') && toneOf('rejected')[1] === 'error'
      && toneOf('reverted') && toneOf('reverted')[1] === 'plain'
      && toneOf('rejected')[2] !== toneOf('applied')[2] && toneOf('reverted')[2] !== toneOf('applied')[2]
      && tones.every((t) => t[1] !== 'ok' || t[0] === 'applied' || t[0] === 'executed'), tones);
    const rowU = pageA.locator(`[data-testid="audit-row"][data-call-id="${update.callId}"]`);
    check('the approved update is in the audit, applied', (await eventually(async () => (await rowU.getAttribute('data-status', {timeout: 1000})) === 'applied')) !== null);
    const rowX = pageA.locator(`[data-testid="audit-row"][data-call-id="${xss.callId}"]`);
    check('the denied call is in the audit, rejected, with its reason', (await eventually(async () =>
      (await rowX.getAttribute('data-status', {timeout: 1000})) === 'rejected' && (await text(rowX)).includes(reason))) !== null);
    const rowR = pageA.locator(`[data-testid="audit-row"][data-call-id="${race.callId}"]`);
    check('the raced call is in the audit once, applied', (await rowR.count()) === 1 && (await rowR.getAttribute('data-status')) === 'applied');
    const hash = rowU.getByTestId('audit-hash');
    const fullHash = (await hash.getAttribute('title')) || '';
    check('arguments appear only as their hash (short, full in title)', fullHash.length >= 16 && (await text(hash)).length < fullHash.length,
      fullHash);
    const rawAudit = await (await ctxA.request.get(api('api/audit?limit=200'))).json();
    const leaked = (rawAudit.records || []).filter((r) => 'arguments' in r || 'payload' in r || 'token' in r);
    check('audit records carry no raw arguments, payload or token', (rawAudit.records || []).length > 0 && leaked.length === 0, leaked[0]);
    check('hostile text in the audit stays text', (await pageA.locator('img[src="x"]').count()) === 0 && wA.dialogs.length === 0);
    await dismissToasts(pageA);
    const auditShot = path.join(OUT, 'console-audit.png');
    await pageA.screenshot({path: auditShot});
    check('screenshot of the audit page taken', fs.statSync(auditShot).size > 10000, auditShot);
    await pageA.getByTestId('audit-filter-tool').fill('incident.update');
    await pageA.getByTestId('audit-apply').click();
    const toolsShown = await eventually(async () => {
      const tools = await pageA.locator('[data-testid="audit-row"] td:nth-child(2) .mono').allTextContents();
      return tools.length > 0 && tools.every((t) => t === 'incident.update') ? tools : null;
    });
    check('filter by tool shows only that tool', !!toolsShown && (await rowU.count()) === 1, toolsShown);
    await pageA.getByTestId('audit-filter-tool').fill('');
    await pageA.getByTestId('audit-filter-status').selectOption('rejected');
    await pageA.getByTestId('audit-filter-principal').fill('user:carol');
    await pageA.getByTestId('audit-apply').click();
    const statuses = await eventually(async () => {
      const s = await pageA.locator('[data-testid="audit-row"]').evaluateAll((rs) => rs.map((r) => r.getAttribute('data-status')));
      return s.length > 0 && s.every((x) => x === 'rejected') ? s : null;
    });
    check('filter by status and principal shows only carol\'s rejected calls', !!statuses && (await rowX.count()) === 1, statuses);
    await pageA.getByTestId('audit-filter-principal').fill('carol');
    await pageA.getByTestId('audit-apply').click();
    const byName = await eventually(async () => {
      const principals = await pageA.locator('[data-testid="audit-row"] td:nth-child(3)').allTextContents();
      return principals.length === statuses.length && principals.every((p) => p === 'user:carol') ? principals : null;
    });
    check('the principal filter finds "carol" as it finds "user:carol"', !!byName && (await rowX.count()) === 1, byName);
    const badFilter = await ctxA.request.get(api('api/audit?from=yesterday'));
    const badFilterBody = await badFilter.json().catch(() => ({}));
    check('a bad filter value is refused naming the field', badFilter.status() === 400 && badFilterBody.field === 'from',
      [badFilter.status(), badFilterBody]);

    section('sources and drift');
    await pageA.getByTestId('nav-sources').click();
    const sourcesApi = await (await ctxA.request.get(api('api/sources'))).json();
    const shownSources = await eventually(async () => (await pageA.locator('#view-sources').isVisible())
      && (await pageA.getByTestId('source-row').count()) === (sourcesApi.sources || []).length
      && (await pageA.getByTestId('drift-row').count()) === (sourcesApi.drifted || []).length, 5000);
    check('the sources view lists what api/sources says (sources and drifted tools)', !!shownSources, sourcesApi);

    section('a non-approver sees no inbox');
    const ctxC = await browser.newContext({viewport: {width: 1280, height: 860}});
    const pageC = await ctxC.newPage();
    const wC = watch(pageC, 'bob');
    await login(pageC, 'bob', 'bob-token');
    const notOperator = await eventually(async () => (await pageC.getByTestId('not-operator').isVisible()) && text(pageC.getByTestId('not-operator')));
    check('bob sees "You cannot decide proposals: it needs the approver rule ..."',
      !!notOperator && /cannot decide proposals: it needs the approver rule \S+/.test(notOperator), notOperator);
    await sleep(2500);
    check('bob sees no cards and no count', (await pageC.getByTestId('card').count()) === 0 && !(await pageC.getByTestId('inbox-count').isVisible()));
    const bobInbox = await ctxC.request.get(api('api/inbox'));
    const bobBody = await bobInbox.json().catch(() => ({}));
    check('api/inbox answers bob 403 forbidden', bobInbox.status() === 403 && bobBody.error === 'forbidden', [bobInbox.status(), bobBody]);
    const bobAudit = await ctxC.request.get(api('api/audit'));
    check('api/audit answers bob 403', bobAudit.status() === 403, bobAudit.status());

    section('sign out');
    await pageA.getByTestId('logout').click();
    check('signing out shows the login again', !!(await eventually(() => pageA.getByTestId('login-user').isVisible())));
    const after = await ctxA.request.get(api('api/session'));
    check('the session is gone (api/session 401)', after.status() === 401, after.status());

    section('page health');
    for (const w of watched) {
      check(`${w.label}: no dialogs, page errors or CSP violations`, !w.dialogs.length && !w.errors.length && !w.csp.length,
        {dialogs: w.dialogs, errors: w.errors, csp: w.csp});
    }
    await Promise.all([ctxA.close(), ctxB.close(), ctxC.close()]);
    void wB;
    void wC;

    if (UPDATE_DOCS) {
      fs.mkdirSync(DOCS, {recursive: true});
      fs.copyFileSync(inboxShot, path.join(DOCS, 'console-inbox.png'));
      fs.copyFileSync(auditShot, path.join(DOCS, 'console-audit.png'));
      console.log(`\nconsole-e2e: screenshots copied to ${DOCS}`);
    }
  } finally {
    await browser.close();
  }
}

try {
  await main();
} catch (error) {
  check('the test ran to the end', false, error && error.stack ? error.stack : String(error));
}
console.log('');
for (const f of failures) console.log(`  failed: ${f}`);
console.log(`console-e2e: ${passed} passed, ${failures.length} failed`);
if (failures.length) process.exit(1);
