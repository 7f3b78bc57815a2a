/*
 * Toolgate operator console: plain ES2020, no dependencies, no build step.
 * Served under a strict CSP (script-src 'self'; style-src 'self'). Every piece of data reaches the page
 * through createElement + textContent only, never as markup. All URLs are relative to the mount point.
 */
'use strict';

(() => {
  const POLL_MS = 2000;
  // 'host': the application signs people in and the page never shows its own sign-in form
  const HOST_SIGN_IN = (document.querySelector('meta[name="toolgate-sign-in"]') || {}).content === 'host';
  const NOT_SIGNED_IN = 'Not signed in to the application.';
  const CLOCK_SLACK_MS = 50; // the server's "now" is rounded; a browser clock may step by a few ms
  const DONE_LINGER_MS = 6000;
  const TOAST_MS = 7000;

  const state = {
    session: null,        // api/session answer
    view: null,           // 'login' | 'host' | 'inbox' | 'audit' | 'sources'
    host: HOST_SIGN_IN,   // signed in by the application (learned from the page, or from a 401 body)
    inboxVersion: null,
    clockSkew: 0,         // server clock minus browser clock, in ms
    clockRtt: null,       // round trip of the answer clockSkew was learned from, in ms (null: none yet)
    cards: new Map(),     // callId -> {el, json, busy, done}
    pollTimer: null,
    polling: false,
    auditNext: null,
    auditQuery: null,
    listed: new Set(),    // callIds the last inbox answer listed
  };

  const $ = (id) => document.getElementById(id);

  // ---- DOM helpers (text only) ----------------------------------------------------------------

  /** el('div', {class: 'x', testid: 'y', text: 'z', attrs: {...}}, ...children) */
  function el(tag, opts, ...children) {
    const node = document.createElement(tag);
    const o = opts || {};
    if (o.class) node.className = o.class;
    if (o.testid) node.setAttribute('data-testid', o.testid);
    if (o.text !== undefined && o.text !== null) node.textContent = String(o.text);
    if (o.title) node.title = o.title;
    if (o.attrs) {
      for (const [k, v] of Object.entries(o.attrs)) {
        if (v !== undefined && v !== null && v !== false) node.setAttribute(k, v === true ? '' : String(v));
      }
    }
    if (o.on) {
      for (const [k, v] of Object.entries(o.on)) node.addEventListener(k, v);
    }
    for (const child of children) {
      if (child === null || child === undefined || child === false) continue;
      node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return node;
  }

  function clear(node) {
    while (node.firstChild) node.removeChild(node.firstChild);
  }

  function show(node, visible) {
    node.hidden = !visible;
  }

  function button(label, testid, cls, onClick, extra) {
    return el('button', Object.assign({class: 'btn ' + (cls || ''), testid, text: label,
      attrs: {type: 'button'}, on: {click: onClick}}, extra || {}));
  }

  // ---- formatting -----------------------------------------------------------------------------

  function fmtTime(iso) {
    if (!iso) return '';
    const d = new Date(iso);
    if (Number.isNaN(d.getTime())) return String(iso);
    const pad = (n) => String(n).padStart(2, '0');
    return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
  }

  function fmtJson(value) {
    if (value === undefined) return '';
    try {
      return JSON.stringify(value, null, 2);
    } catch (e) {
      return String(value);
    }
  }

  function fmtValue(value) {
    if (value === null || value === undefined) return '—';
    if (typeof value === 'string') return value;
    return JSON.stringify(value);
  }

  function fmtPrincipal(p) {
    if (!p) return '';
    if (typeof p === 'string') return p;
    return p.key || (p.kind ? `${p.kind}:${p.id}` : String(p.id || ''));
  }

  /** Time left as a duration: "expires in 2 d 3 h", "in 23 h 59 min", "in 4 min 10 s", "in 9 s". */
  function fmtRemaining(ms) {
    if (ms <= 0) return 'expired';
    const total = Math.floor(ms / 1000);
    const d = Math.floor(total / 86400);
    const h = Math.floor((total % 86400) / 3600);
    const m = Math.floor((total % 3600) / 60);
    const s = total % 60;
    if (d > 0) return `expires in ${d} d ${h} h`;
    if (h > 0) return `expires in ${h} h ${m} min`;
    return m > 0 ? `expires in ${m} min ${s} s` : `expires in ${s} s`;
  }

  /**
   * How a call's status reads: a success (applied, executed) green; pending blue; a refusal or failure
   * (denied, rejected, failed, invalid) red; an outcome to look at (interrupted, stale, expired) amber;
   * undone or replaced (reverted, superseded) neutral.
   */
  const STATUS_TONE = {
    applied: 'ok', executed: 'ok', proposed: 'info', applying: 'info',
    denied: 'error', rejected: 'error', failed: 'error', invalid: 'error',
    interrupted: 'warn', stale: 'warn', expired: 'warn', reverted: 'plain', superseded: 'plain',
  };
  function statusTone(status) {
    return STATUS_TONE[status] || 'plain';
  }

  /** A card's status line for a decision that worked, by the call's status (none given: a success). */
  function cardKind(status) {
    const tone = status ? statusTone(status) : 'ok';
    return tone === 'ok' || tone === 'info' ? 'ok' : (tone === 'error' ? 'error' : 'warn');
  }

  function shortId(id) {
    const s = String(id || '');
    return s.length > 12 ? s.slice(0, 8) + '…' : s;
  }

  function serverNow() {
    return Date.now() + state.clockSkew;
  }

  /**
   * Learns the server's clock from an answer's "now", stamped somewhere between sentAt and receivedAt
   * (browser clock), so the estimate is off by at most half the round trip. A slow answer must not move
   * the countdowns (an estimate taken as "now minus the answer's time" jumps by the latency): a sample is
   * taken when its round trip is no longer than that of the estimate in use, or when it cannot agree with
   * that estimate within both error bounds (a clock really moved).
   */
  function noteServerClock(iso, sentAt, receivedAt) {
    const t = Date.parse(iso || '');
    if (Number.isNaN(t) || receivedAt < sentAt) return;
    const rtt = receivedAt - sentAt;
    const skew = t - (sentAt + rtt / 2);
    const inUse = state.clockRtt;
    if (inUse === null || rtt <= inUse || Math.abs(skew - state.clockSkew) > (rtt + inUse) / 2 + CLOCK_SLACK_MS) {
      state.clockSkew = skew;
      state.clockRtt = rtt;
    }
  }

  // ---- toasts ---------------------------------------------------------------------------------

  function toast(message, kind) {
    const box = $('toasts');
    const t = el('div', {class: 'toast toast-' + (kind || 'info'), testid: 'toast',
      attrs: {role: kind === 'error' ? 'alert' : 'status'}});
    t.append(el('span', {text: message}),
      el('button', {class: 'toast-close', text: '×', attrs: {type: 'button', 'aria-label': 'Dismiss'},
        on: {click: () => t.remove()}}));
    box.append(t);
    while (box.children.length > 5) box.firstChild.remove();
    setTimeout(() => t.remove(), kind === 'error' ? TOAST_MS * 2 : TOAST_MS);
  }

  // ---- API ------------------------------------------------------------------------------------

  class ApiError extends Error {
    constructor(status, body) {
      super((body && body.message) || `HTTP ${status}`);
      this.status = status;
      this.body = body || {};
      this.code = this.body.error || 'http_' + status;
    }
  }

  async function api(method, path, body, extraHeaders) {
    const headers = Object.assign({Accept: 'application/json'}, extraHeaders || {});
    const init = {method, headers, credentials: 'same-origin', cache: 'no-store', redirect: 'error'};
    if (method !== 'GET') {
      headers['Content-Type'] = 'application/json';
      if (path !== 'api/login' && state.session && state.session.csrf) headers['X-Toolgate-Csrf'] = state.session.csrf;
      init.body = JSON.stringify(body === undefined ? {} : body);
    }
    let response;
    try {
      response = await fetch(path, init);
    } catch (e) {
      throw new ApiError(0, {error: 'network', message: 'The console server cannot be reached.'});
    }
    if (response.status === 304) return {status: 304, data: null, headers: response.headers};
    let data = null;
    const type = response.headers.get('Content-Type') || '';
    if (response.status !== 204 && type.includes('json')) {
      try {
        data = await response.json();
      } catch (e) {
        data = null;
      }
    }
    if (!response.ok) {
      const err = new ApiError(response.status, data);
      if (response.status === 401 && path !== 'api/login' && path !== 'api/session') sessionEnded();
      throw err;
    }
    return {status: response.status, data, headers: response.headers};
  }

  // ---- session --------------------------------------------------------------------------------

  async function boot() {
    $('login-form').addEventListener('submit', onLogin);
    $('host-open').addEventListener('click', openSession);
    $('logout').addEventListener('click', onLogout);
    $('audit-form').addEventListener('submit', (e) => {
      e.preventDefault();
      loadAudit(false);
    });
    $('audit-reset').addEventListener('click', () => {
      $('audit-form').reset();
      loadAudit(false);
    });
    $('audit-older').addEventListener('click', () => loadAudit(true));
    $('sources-refresh').addEventListener('click', () => loadSources(true));
    window.addEventListener('hashchange', route);
    document.addEventListener('visibilitychange', () => {
      if (!document.hidden && state.session) pollInbox(true);
    });
    setInterval(tickCountdowns, 1000);
    await openSession();
  }

  /** Asks who is signed in; with host sign-in this opens the console session for the application's user. */
  async function openSession() {
    try {
      const r = await api('GET', 'api/session');
      signedIn(r.data);
    } catch (e) {
      if (e.body.signIn === 'host') state.host = true;
      if (state.host) showHost(e.code === 'unauthenticated' ? NOT_SIGNED_IN : e.message);
      else showLogin(e.status && e.status !== 401 ? e.message : null);
    }
  }

  async function onLogin(event) {
    event.preventDefault();
    const user = $('login-user').value.trim();
    const secret = $('login-secret').value;
    const error = $('login-error');
    if (!user || !secret) {
      error.textContent = 'Enter your user and secret.';
      show(error, true);
      return;
    }
    const submit = $('login-submit');
    submit.disabled = true;
    try {
      const r = await api('POST', 'api/login', {user, secret});
      $('login-secret').value = '';
      show(error, false);
      signedIn(r.data);
    } catch (e) {
      error.textContent = e.code === 'too_many_logins'
        ? 'Too many failed sign-ins. Wait a minute and try again.'
        : (e.message || 'Sign-in failed.');
      show(error, true);
      $('login-secret').select();
    } finally {
      submit.disabled = false;
    }
  }

  async function onLogout() {
    let said = null;
    try {
      const r = await api('POST', 'api/logout', {});
      said = r.data && r.data.message;
    } catch (e) {
      // the session is gone either way
    }
    state.session = null;
    stopPolling();
    resetInbox();
    if (state.host) showHost(said || 'Signed out of the console; your application sign-in is unchanged.');
    else showLogin('Signed out.');
  }

  function sessionEnded() {
    if (!state.session) return;
    state.session = null;
    stopPolling();
    resetInbox();
    if (state.host) showHost('Your console session ended.');
    else showLogin('Your session ended. Sign in again.');
  }

  function signedIn(session) {
    state.session = session;
    if (session.signIn === 'host') state.host = true;
    const who = $('whoami');
    who.textContent = session.principal + (session.kind && session.kind !== 'user' ? ` (${session.kind})` : '')
      + (session.tenant ? ` · ${session.tenant}` : '');
    who.title = session.operator ? 'Operator: may decide proposals' : 'Not an operator';
    show($('topbar'), true);
    show($('inbox-count'), !!session.operator);
    if (!location.hash || location.hash === '#login') {
      history.replaceState(null, '', '#inbox');
    }
    route();
    if (session.operator) startPolling();
  }

  /** Host sign-in: a message and a way to open the console again, never a sign-in form. */
  function showHost(message) {
    show($('topbar'), false);
    setView('host');
    document.title = 'Toolgate console';
    $('host-message').textContent = message || NOT_SIGNED_IN;
    $('host-open').focus();
  }

  function showLogin(message) {
    if (state.host) {
      showHost(message);
      return;
    }
    show($('topbar'), false);
    setView('login');
    const error = $('login-error');
    if (message) {
      error.textContent = message;
      show(error, true);
    } else {
      show(error, false);
    }
    $('login-user').focus();
  }

  // ---- routing --------------------------------------------------------------------------------

  function setView(name) {
    state.view = name;
    for (const v of ['loading', 'login', 'host', 'inbox', 'audit', 'sources']) show($('view-' + v), v === name);
    for (const v of ['inbox', 'audit', 'sources']) {
      const link = $('nav-' + v);
      if (v === name) link.setAttribute('aria-current', 'page');
      else link.removeAttribute('aria-current');
    }
  }

  function route() {
    if (!state.session) return;
    const name = (location.hash || '#inbox').slice(1);
    const view = ['inbox', 'audit', 'sources'].includes(name) ? name : 'inbox';
    setView(view);
    document.title = `${view[0].toUpperCase()}${view.slice(1)} · Toolgate console`;
    if (view === 'inbox') renderInboxAccess();
    if (view === 'audit') loadAudit(false);
    if (view === 'sources') loadSources(false);
  }

  function notOperatorText() {
    const rule = (state.session && state.session.approverRule) || 'toolgate.approve';
    return `You cannot decide proposals: it needs the approver rule ${rule}.`;
  }

  // ---- inbox ----------------------------------------------------------------------------------

  function renderInboxAccess() {
    const operator = !!(state.session && state.session.operator);
    const notice = $('not-operator');
    notice.textContent = operator ? '' : notOperatorText();
    show(notice, !operator);
    if (!operator) {
      clear($('cards'));
      show($('inbox-empty'), false);
      show($('doubt'), false);
      $('inbox-meta').textContent = '';
    } else {
      pollInbox(true);
    }
  }

  function resetInbox() {
    state.inboxVersion = null;
    state.cards.clear();
    state.listed = new Set();
    clear($('cards'));
    clear($('doubt-list'));
    show($('doubt'), false);
    show($('inbox-empty'), false);
  }

  function startPolling() {
    stopPolling();
    state.pollTimer = setInterval(() => pollInbox(false), POLL_MS);
    pollInbox(true);
  }

  function stopPolling() {
    if (state.pollTimer) clearInterval(state.pollTimer);
    state.pollTimer = null;
  }

  async function pollInbox(force) {
    if (!state.session || !state.session.operator || state.polling) return;
    if (document.hidden && !force) return;
    state.polling = true;
    try {
      const headers = {};
      if (state.inboxVersion && !force) headers['If-None-Match'] = `"${state.inboxVersion}"`;
      const sentAt = Date.now();
      const r = await api('GET', 'api/inbox', undefined, headers);
      if (r.status === 200 && r.data) {
        state.inboxVersion = r.data.version;
        noteServerClock(r.data.now, sentAt, Date.now());
        renderInbox(r.data);
      } else {
        sweepDone();
      }
      $('inbox-meta').textContent = 'Updated ' + fmtTime(new Date().toISOString());
    } catch (e) {
      if (e.status === 403 && e.code === 'forbidden') {
        state.session.operator = false;
        stopPolling();
        renderInboxAccess();
      } else if (e.status !== 401) {
        $('inbox-meta').textContent = 'Could not refresh: ' + e.message;
      }
    } finally {
      state.polling = false;
    }
  }

  function renderInbox(data) {
    const cards = Array.isArray(data.cards) ? data.cards : [];
    const container = $('cards');
    const seen = new Set();
    let previous = null;
    for (const card of cards) {
      seen.add(card.callId);
      const json = JSON.stringify(card);
      let entry = state.cards.get(card.callId);
      if (entry && entry.json !== json && !entry.busy && !entry.done) {
        const fresh = buildCard(card);
        entry.el.replaceWith(fresh.el);
        entry = Object.assign(fresh, {json});
        state.cards.set(card.callId, entry);
      } else if (!entry) {
        entry = Object.assign(buildCard(card), {json});
        state.cards.set(card.callId, entry);
      }
      const anchor = previous ? previous.nextSibling : container.firstChild;
      if (entry.el !== anchor) container.insertBefore(entry.el, anchor);
      previous = entry.el;
    }
    state.listed = seen;
    for (const [id, entry] of state.cards) {
      if (!seen.has(id) && !entry.busy && !entry.done) {
        entry.el.remove();
        state.cards.delete(id);
      }
    }
    sweepDone();
    const open = cards.length;
    $('inbox-count').textContent = String(open);
    $('nav-inbox').setAttribute('aria-label', `Inbox, ${open} waiting`);
    renderDoubt(Array.isArray(data.inDoubt) ? data.inDoubt : []);
    tickCountdowns();
  }

  /** A decided card stays a moment with its status line, then goes once the server no longer lists it. */
  function sweepDone() {
    for (const [id, entry] of state.cards) {
      if (!entry.done || state.listed.has(id)) continue;
      if (!entry.removeAt) entry.removeAt = Date.now() + DONE_LINGER_MS;
      if (Date.now() >= entry.removeAt) {
        entry.el.remove();
        state.cards.delete(id);
      }
    }
    show($('inbox-empty'), state.listed.size === 0 && state.cards.size === 0);
  }

  function effectBadge(effect) {
    const e = String(effect || 'unknown');
    return el('span', {class: 'badge effect-' + e.replace(/[^a-z]/g, ''), testid: 'card-effect', text: e});
  }

  function diffTable(diff) {
    const table = el('table', {class: 'diff', testid: 'card-diff'});
    table.append(el('caption', {class: 'sr-only', text: 'Changes'}));
    table.append(el('thead', null, el('tr', null,
      el('th', {text: 'Field', attrs: {scope: 'col'}}),
      el('th', {text: 'Before', attrs: {scope: 'col'}}),
      el('th', {text: 'After', attrs: {scope: 'col'}}))));
    const body = el('tbody');
    for (const change of diff) {
      body.append(el('tr', null,
        el('th', {class: 'diff-path', text: change.path || '(root)', attrs: {scope: 'row'}}),
        el('td', {class: 'diff-before', text: fmtValue(change.before)}),
        el('td', {class: 'diff-after', text: fmtValue(change.after)})));
    }
    table.append(body);
    return table;
  }

  function meta(label, value, testid, cls) {
    return el('div', {class: 'meta-item ' + (cls || '')},
      el('dt', {text: label}), el('dd', {text: value, testid}));
  }

  /** What changed since a preview, in a line: "/before/title: "a" → "b"". */
  function staleText(changes, message) {
    if (!Array.isArray(changes) || !changes.length) return (message || 'the object changed since.');
    return 'changed since: ' + changes.slice(0, 5).map((c) => `${c.path || '(the state)'}: `
      + `${c.before === undefined ? '—' : JSON.stringify(c.before)} → ${c.after === undefined ? '—' : JSON.stringify(c.after)}`)
      .join('; ') + (changes.length > 5 ? `; and ${changes.length - 5} more` : '') + '.';
  }

  function buildCard(card) {
    const entry = {el: null, busy: false, done: false};
    const id = card.callId;
    const root = el('article', {class: 'card', testid: 'card',
      attrs: {'data-call-id': id, 'aria-labelledby': 'card-title-' + id}});
    if (card.effect === 'destructive') root.classList.add('card-destructive');

    const head = el('header', {class: 'card-head'},
      el('h2', {class: 'card-tool', testid: 'card-tool', text: card.tool, attrs: {id: 'card-title-' + id}}),
      effectBadge(card.effect),
      card.supersedes ? el('span', {class: 'badge badge-plain', text: 'edited', title: 'Replaces ' + card.supersedes}) : null,
      el('span', {class: 'expiry', testid: 'card-expiry', attrs: {'data-expires': card.expiresAt || ''}}));
    root.append(head);
    root.append(el('p', {class: 'card-summary', testid: 'card-summary', text: card.summary || '(no summary)'}));

    if (card.stale) {
      root.classList.add('card-stale');
      root.append(el('p', {class: 'stale', testid: 'card-stale', attrs: {role: 'status'},
        text: 'Preview out of date: ' + staleText(card.staleChanges, card.staleMessage)
          + ' Approving runs nothing; propose again from the current state.'}));
    }
    const diff = Array.isArray(card.diff) ? card.diff : [];
    if (diff.length) root.append(diffTable(diff));
    else root.append(el('p', {class: 'muted small', testid: 'card-diff-none', text: 'No field-level diff for this change.'}));

    const payload = el('details', {class: 'payload'},
      el('summary', {text: 'Payload'}),
      el('pre', {testid: 'card-payload', text: fmtJson(card.payload)}));
    root.append(payload);

    const metaList = el('dl', {class: 'meta'},
      meta('Proposer', fmtPrincipal(card.proposer), 'card-proposer'),
      meta('Session', card.session ? shortId(card.session) : '—', 'card-session'),
      card.tenant ? meta('Tenant', card.tenant, 'card-tenant') : null,
      meta('Created', fmtTime(card.createdAt), 'card-created'),
      meta('Mode', `${card.mode || ''}${card.modeSource ? ' (' + card.modeSource + ')' : ''}`, 'card-mode'),
      card.executionId ? meta('Run', `${card.executionId} · step ${card.stepSeq}`, 'card-run') : null,
      meta('Call', shortId(id), 'card-call-id'));
    metaList.lastChild.lastChild.title = id;
    if (card.session) metaList.querySelector('[data-testid="card-session"]').title = card.session;
    root.append(metaList);

    const status = el('p', {class: 'card-status', testid: 'card-status', attrs: {role: 'status'}});
    status.hidden = true;

    const actions = el('div', {class: 'actions'});
    const panel = el('div', {class: 'panel'});
    panel.hidden = true;
    const buttons = [];

    const setStatus = (text, kind) => {
      status.textContent = text;
      status.className = 'card-status status-' + (kind || 'info');
      status.hidden = false;
    };
    const lock = (locked) => {
      for (const b of buttons) b.disabled = locked || !card.decidable;
      for (const c of panel.querySelectorAll('button, textarea, input, select')) c.disabled = locked;
    };
    const finish = (text, kind) => {
      entry.done = true;
      entry.busy = false;
      setStatus(text, kind);
      for (const b of buttons) b.disabled = true;
      clear(panel);
      panel.hidden = true;
      root.classList.add('card-done');
      toast(text, kind === 'error' ? 'error' : (kind === 'ok' ? 'ok' : 'warn'));
      pollInbox(true);
    };
    /** kind: how the card's status line reads once it worked ('ok' unless given, e.g. 'refused' for a denial). */
    const decide = async (action, body, successText, inlineErrors, kind) => {
      entry.busy = true;
      lock(true);
      setStatus('Working…');
      try {
        const r = await api('POST', `api/inbox/${encodeURIComponent(id)}/${action}`, body);
        const d = r.data || {};
        if (d.outcome === 'failed') finish(`approved, but the tool failed: ${d.message || d.status || 'see the audit'}`, 'error');
        else if (d.outcome === 'stale') finish(`stale, nothing ran: ${staleText(d.changes, d.message)} Propose again from the current state.`, 'warn');
        else finish(successText(d), kind || cardKind(d.status));
      } catch (e) {
        if (e.status === 409 || e.code === 'already_decided') {
          const text = e.body.message || `already decided: ${e.body.status || 'closed'}${e.body.by ? ' by ' + e.body.by : ''}`;
          finish(text, 'warn');
        } else {
          entry.busy = !panel.hidden;
          lock(false);
          if (inlineErrors && e.status === 400) {
            status.hidden = true;
          } else {
            setStatus(e.message || 'The request failed.', 'error');
            toast(e.message || 'The request failed.', 'error');
          }
        }
        return e;
      }
      return null;
    };

    const approveText = (d) => d.outcome === 'resumed'
      ? `approved: run ${d.executionId || ''} ${d.runStatus || 'resumed'}`.replace(/\s+/g, ' ')
      : `approved: ${d.status || 'applied'}`;

    const approveOnce = button('Approve once', 'approve-once', 'btn-primary',
      () => decide('approve', {always: false, scope: null}, approveText));
    buttons.push(approveOnce);
    actions.append(approveOnce);

    const scopes = (Array.isArray(card.scopes) ? card.scopes : ['automation', 'tenant'])
      .filter((s) => s === 'automation' || s === 'tenant');
    if (card.alwaysAllowed && scopes.length) {
      const scopeId = 'scope-' + id;
      const scope = el('select', {class: 'scope', testid: 'always-scope', attrs: {id: scopeId, 'aria-label': 'Scope of approve always'}},
        ...scopes.map((s) => el('option', {text: s === 'automation' ? 'this automation' : 'whole tenant', attrs: {value: s}})));
      const always = button('Approve always', 'approve-always', '',
        () => decide('approve', {always: true, scope: scope.value},
          (d) => `${approveText(d)}; always allowed for this ${scope.value}`),
        {title: 'Approve, and let this tool run without asking from now on in the chosen scope'});
      buttons.push(always);
      actions.append(el('span', {class: 'group'}, always, scope));
    }

    const openPanel = (builder) => {
      clear(panel);
      builder(panel);
      panel.hidden = false;
      entry.busy = true;
      const first = panel.querySelector('textarea, input');
      if (first) first.focus();
    };
    const closePanel = () => {
      clear(panel);
      panel.hidden = true;
      entry.busy = false;
    };

    const deny = button('Deny', 'deny', 'btn-danger', () => openPanel((p) => {
      const fieldId = 'deny-reason-' + id;
      const reason = el('textarea', {class: 'reason', testid: 'deny-reason',
        attrs: {id: fieldId, rows: 2, maxlength: 500, required: true, placeholder: 'Why is this denied? The proposer sees it.'}});
      const error = el('p', {class: 'error small', attrs: {role: 'alert'}});
      error.hidden = true;
      const confirm = button('Deny with this reason', 'deny-confirm', 'btn-danger', async () => {
        const text = reason.value.trim();
        if (!text) {
          error.textContent = 'A reason is required.';
          error.hidden = false;
          reason.focus();
          return;
        }
        if (text.length > 500) {
          error.textContent = 'At most 500 characters.';
          error.hidden = false;
          return;
        }
        error.hidden = true;
        const failure = await decide('deny', {reason: text}, () => 'denied', true, 'refused');
        if (failure && failure.status === 400) {
          error.textContent = failure.message;
          error.hidden = false;
        }
      });
      reason.addEventListener('keydown', (e) => {
        if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) confirm.click();
        if (e.key === 'Escape') closePanel();
      });
      p.append(el('label', {text: 'Reason for denying', attrs: {for: fieldId}}), reason, error,
        el('div', {class: 'panel-actions'}, confirm, button('Cancel', 'deny-cancel', 'btn-quiet', closePanel)));
    }));
    buttons.push(deny);

    const edit = button('Edit', 'edit', '', () => openPanel((p) => {
      const fieldId = 'edit-payload-' + id;
      const area = el('textarea', {class: 'code', testid: 'edit-payload',
        attrs: {id: fieldId, rows: Math.min(16, fmtJson(card.payload).split('\n').length + 1), spellcheck: 'false'}});
      area.value = fmtJson(card.payload);
      const error = el('p', {class: 'error small', testid: 'edit-error', attrs: {role: 'alert'}});
      error.hidden = true;
      const save = button('Save as new proposal', 'edit-save', 'btn-primary', async () => {
        let args;
        try {
          args = JSON.parse(area.value);
        } catch (e) {
          error.textContent = 'Not valid JSON: ' + e.message;
          error.hidden = false;
          return;
        }
        if (args === null || typeof args !== 'object' || Array.isArray(args)) {
          error.textContent = 'The arguments must be a JSON object.';
          error.hidden = false;
          return;
        }
        error.hidden = true;
        const failure = await decide('edit', {arguments: args}, (d) => {
          const rep = d.replacement || {};
          return `edited: new proposal ${shortId(rep.callId)} (${rep.status || 'proposed'})`;
        }, true);
        if (failure && failure.status === 400) {
          error.textContent = failure.message;
          error.hidden = false;
        }
      });
      area.addEventListener('keydown', (e) => {
        if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) save.click();
        if (e.key === 'Escape') closePanel();
      });
      p.append(el('label', {text: 'Payload (JSON); saving creates a proposal that replaces this one', attrs: {for: fieldId}}),
        area, error, el('div', {class: 'panel-actions'}, save, button('Cancel', 'edit-cancel', 'btn-quiet', closePanel)));
    }));
    buttons.push(edit);
    actions.append(deny, edit);

    if (!card.decidable) {
      for (const b of buttons) b.disabled = true;
      root.classList.add('card-blocked');
      root.append(el('p', {class: 'blocked', testid: 'card-blocked', text: card.blockedReason || 'You cannot decide this card.'}));
    }
    for (const b of buttons) b.setAttribute('aria-describedby', 'card-title-' + id);
    root.append(actions, panel, status);
    entry.el = root;
    return entry;
  }

  function tickCountdowns() {
    const now = serverNow();
    for (const node of document.querySelectorAll('[data-testid="card-expiry"]')) {
      const at = Date.parse(node.getAttribute('data-expires'));
      if (Number.isNaN(at)) {
        node.textContent = '';
        continue;
      }
      const left = at - now;
      node.textContent = fmtRemaining(left);
      node.title = 'Expires at ' + fmtTime(new Date(at).toISOString());
      node.classList.toggle('expired', left <= 0);
      node.classList.toggle('soon', left > 0 && left < 60000);
    }
  }

  /** Keeps rows already shown (an operator may be typing a note), adds new ones, drops resolved ones. */
  function renderDoubt(list) {
    const box = $('doubt-list');
    const keep = new Set(list.map((d) => String(d.callId)));
    for (const row of Array.from(box.children)) {
      if (!keep.has(row.getAttribute('data-call-id'))) row.remove();
    }
    const shown = new Set(Array.from(box.children).map((row) => row.getAttribute('data-call-id')));
    show($('doubt'), list.length > 0);
    for (const d of list) {
      if (shown.has(String(d.callId))) continue;
      const noteId = 'doubt-note-' + d.callId;
      const note = el('input', {class: 'note', testid: 'doubt-note',
        attrs: {id: noteId, placeholder: 'What you checked (optional)', maxlength: 500}});
      const resolve = (applied) => async () => {
        try {
          const r = await api('POST', `api/doubt/${encodeURIComponent(d.callId)}/resolve`, {applied, note: note.value.trim() || null});
          const resolved = (r.data && r.data.status) || (applied ? 'applied' : 'failed');
          toast(`resolved: ${resolved}`, resolved === 'applied' ? 'ok' : 'warn');
        } catch (e) {
          toast(e.message, 'error');
        }
        pollInbox(true);
      };
      box.append(el('div', {class: 'doubt-row', testid: 'doubt-row', attrs: {'data-call-id': d.callId}},
        el('div', {class: 'doubt-head'}, el('strong', {text: d.tool}), effectBadge(d.effect),
          el('span', {class: 'muted small', text: `${fmtPrincipal(d.principal)} · ${fmtTime(d.createdAt)}`})),
        el('p', {text: d.summary || ''}),
        d.error ? el('p', {class: 'error small', text: d.error}) : null,
        el('div', {class: 'actions'},
          el('label', {class: 'sr-only', text: 'Note', attrs: {for: noteId}}), note,
          button('It happened', 'doubt-applied', '', resolve(true)),
          button('It did not happen', 'doubt-failed', '', resolve(false)))));
    }
  }

  // ---- audit ----------------------------------------------------------------------------------

  function auditParams() {
    const params = new URLSearchParams();
    const put = (key, value) => {
      if (value) params.set(key, value);
    };
    put('tool', $('audit-tool').value.trim());
    put('principal', $('audit-principal').value.trim());
    put('status', $('audit-status').value);
    for (const key of ['from', 'to']) {
      const raw = $('audit-' + key).value;
      if (raw) {
        const d = new Date(raw);
        put(key, Number.isNaN(d.getTime()) ? raw : d.toISOString());
      }
    }
    params.set('limit', '50');
    return params;
  }

  async function loadAudit(older) {
    if (!state.session) return;
    const error = $('audit-error');
    const denied = $('audit-denied');
    if (!state.session.operator) {
      denied.textContent = 'The audit is for operators: it needs the approver rule '
        + (state.session.approverRule || 'toolgate.approve') + '.';
      show(denied, true);
      show($('audit-form'), false);
      clear($('audit-rows'));
      show($('audit-older'), false);
      return;
    }
    show(denied, false);
    show($('audit-form'), true);
    let params;
    if (older) {
      if (!state.auditNext) return;
      params = new URLSearchParams(state.auditQuery);
      params.set('cursor', state.auditNext);
    } else {
      params = auditParams();
      state.auditQuery = params.toString();
    }
    $('audit-apply').disabled = true;
    try {
      const r = await api('GET', 'api/audit?' + params.toString());
      show(error, false);
      const rows = $('audit-rows');
      if (!older) clear(rows);
      for (const rec of (r.data.records || [])) rows.append(auditRow(rec));
      state.auditNext = r.data.next || null;
      show($('audit-older'), !!state.auditNext);
      show($('audit-empty'), rows.children.length === 0);
    } catch (e) {
      error.textContent = e.body && e.body.field ? `${e.body.field}: ${e.message}` : e.message;
      show(error, true);
    } finally {
      $('audit-apply').disabled = false;
    }
  }

  function auditRow(rec) {
    const hash = String(rec.argumentsHash || '');
    const decided = rec.decidedBy || rec.appliedBy;

    let resultCell;
    if (rec.error) {
      resultCell = el('span', {class: 'error small', text: rec.error});
    } else if (rec.result !== null && rec.result !== undefined) {
      const flat = JSON.stringify(rec.result);
      resultCell = flat.length > 36
        ? el('details', {class: 'result'}, el('summary', {text: flat.slice(0, 30) + '…'}), el('pre', {text: fmtJson(rec.result)}))
        : el('code', {text: flat});
    } else {
      resultCell = el('span', {class: 'muted', text: '—'});
    }
    const status = String(rec.status || '');
    const links = [];
    if (rec.supersedes) links.push('replaces ' + shortId(rec.supersedes));
    if (rec.supersededBy) links.push('replaced by ' + shortId(rec.supersededBy));
    if (rec.reverts) links.push(callLink('revert of ', rec.reverts, 'audit-reverts'));
    if (rec.revertedBy) links.push(callLink('reverted by ', rec.revertedBy, 'audit-reverted-by'));
    if (rec.executionId) links.push(`run ${shortId(rec.executionId)} · step ${rec.stepSeq}`);
    const duration = rec.durationMillis === null || rec.durationMillis === undefined ? null : rec.durationMillis + ' ms';
    const tone = statusTone(status);
    const linkLine = links.length ? el('div', {class: 'muted small'}) : null;
    links.forEach((link, i) => linkLine.append(i ? ' · ' : '', link));
    return el('tr', {testid: 'audit-row', attrs: {id: 'call-' + rec.callId, 'data-call-id': rec.callId, 'data-status': status}},
      el('td', {class: 'nowrap', text: fmtTime(rec.createdAt), title: rec.callId}),
      el('td', null, el('span', {class: 'mono', text: rec.tool}), ' ', effectBadge(rec.effect)),
      el('td', {text: fmtPrincipal(rec.principal), title: rec.session ? 'session ' + rec.session : ''}),
      el('td', null, el('span', {class: `badge status-${status.replace(/[^a-z_]/g, '')} tone-${tone}`, testid: 'audit-status',
        attrs: {'data-tone': tone}, text: status}),
        rec.reverts ? el('span', {class: 'badge badge-plain', testid: 'audit-revert-badge', text: 'revert'}) : null,
        duration ? el('div', {class: 'muted small', text: duration}) : null),
      el('td', {class: 'summary-cell'}, el('span', {text: rec.summary || ''}), linkLine),
      el('td', {class: 'decided-cell'}, decided ? fmtPrincipal(decided) : '',
        rec.decisionReason ? el('div', {class: 'muted small', testid: 'audit-reason', text: rec.decisionReason}) : null),
      el('td', {class: 'result-cell'}, resultCell),
      el('td', null, hash ? el('code', {class: 'hash', testid: 'audit-hash', text: hash.slice(0, 10) + (hash.length > 10 ? '…' : ''), title: hash}) : null));
  }

  /** A link to another call's row (it jumps there when that row is on the page), full id in its title. */
  function callLink(label, callId, testid) {
    const id = String(callId);
    return el('span', {testid}, label, el('a', {text: shortId(id), title: id, attrs: {href: '#call-' + encodeURIComponent(id)}}));
  }

  // ---- sources --------------------------------------------------------------------------------

  async function loadSources(refresh) {
    if (!state.session) return;
    const denied = $('sources-denied');
    if (!state.session.operator) {
      denied.textContent = 'Sources are for operators: it needs the approver rule '
        + (state.session.approverRule || 'toolgate.approve') + '.';
      show(denied, true);
      show($('sources-refresh'), false);
      clear($('source-rows'));
      clear($('drift-list'));
      return;
    }
    show(denied, false);
    show($('sources-refresh'), true);
    const btn = $('sources-refresh');
    btn.disabled = true;
    try {
      const r = refresh ? await api('POST', 'api/sources/refresh', {}) : await api('GET', 'api/sources');
      renderSources(r.data || {});
      if (refresh) toast('Sources re-listed', 'ok');
    } catch (e) {
      toast(e.message, 'error');
    } finally {
      btn.disabled = false;
    }
  }

  function renderSources(data) {
    const rows = $('source-rows');
    clear(rows);
    const sources = data.sources || [];
    for (const s of sources) {
      const problems = [];
      if (s.error) problems.push(s.error);
      for (const skipped of (s.skipped || [])) problems.push('skipped ' + (typeof skipped === 'string' ? skipped : JSON.stringify(skipped)));
      rows.append(el('tr', {testid: 'source-row', attrs: {'data-source': s.id}},
        el('td', null, el('strong', {text: s.displayName || s.id}), el('div', {class: 'muted small mono', text: s.id})),
        el('td', null, el('span', {class: 'badge state-' + String(s.state || '').replace(/[^a-z]/g, ''), text: s.state})),
        el('td', {class: 'num', text: s.tools === undefined ? '' : s.tools}),
        el('td', {class: 'nowrap', text: fmtTime(s.listedAt)}),
        el('td', {class: problems.length ? 'error small' : 'muted', text: problems.length ? problems.join('; ') : '—'})));
    }
    show($('sources-empty'), sources.length === 0);
    const list = $('drift-list');
    clear(list);
    const drifted = data.drifted || [];
    for (const d of drifted) {
      const confirm = button('Confirm schema', 'confirm-schema', '', async () => {
        confirm.disabled = true;
        try {
          await api('POST', 'api/drift/confirm', {tool: d.tool});
          toast(`confirmed: ${d.tool}`, 'ok');
          loadSources(false);
        } catch (e) {
          confirm.disabled = false;
          toast(e.message, 'error');
        }
      }, {attrs: {type: 'button', 'aria-label': 'Confirm schema of ' + d.tool}});
      list.append(el('li', {class: 'drift-row', testid: 'drift-row', attrs: {'data-tool': d.tool}},
        el('span', {class: 'mono', text: d.tool}),
        el('span', {class: 'muted small', text: `${d.source ? 'source ' + d.source + ' · ' : ''}${d.mode || ''}${d.modeSource ? ' (' + d.modeSource + ')' : ''}`}),
        confirm));
    }
    show($('drift-empty'), drifted.length === 0);
  }

  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', boot);
  else boot();
})();
