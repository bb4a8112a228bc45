// The toolgate console: plain DOM, no framework, nothing fetched from
// elsewhere. Text from the server is always set with textContent, never
// as HTML; the CSP allows no inline style, so looks are classes in
// app.css and only geometry is set as attributes.
'use strict';

const H = { 'X-Toolgate-Console': '1' };
const SVG = 'http://www.w3.org/2000/svg';

function el(tag, text, cls) {
  const e = document.createElement(tag);
  if (text !== undefined && text !== null) e.textContent = String(text);
  if (cls) e.className = cls;
  return e;
}

// svg makes an SVG element with attributes attrs.
function svg(tag, attrs, text) {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, String(v));
  if (text !== undefined) e.textContent = String(text);
  return e;
}

// plural counts: "1 request", "2 requests", "0 failures".
function plural(n, one, many) {
  return `${n.toLocaleString()} ${n === 1 ? one : many || one + 's'}`;
}

function ms(v) {
  return v >= 100 ? `${Math.round(v)} ms` : `${v.toFixed(1)} ms`;
}

function clock(t) {
  return new Date(t).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', second: '2-digit', hour12: false });
}

// getJSON answers the JSON of url, or null after sending a caller whose
// session ended back to the login page. An API error is {error: "..."}.
async function getJSON(url) {
  const r = await fetch(url, { credentials: 'same-origin' });
  if (r.status === 401) { location.href = '/ui/'; return null; }
  return r.json();
}

function active(tab) {
  const s = document.getElementById(tab);
  return s && s.classList.contains('active');
}

function tabs() {
  for (const b of document.querySelectorAll('nav button')) {
    b.addEventListener('click', () => {
      for (const x of document.querySelectorAll('nav button')) x.classList.toggle('active', x === b);
      for (const s of document.querySelectorAll('.tab')) s.classList.toggle('active', s.id === b.dataset.tab);
      if (b.dataset.tab === 'providers') providers();
      if (b.dataset.tab === 'spend') spend();
    });
  }
}

// cell is a table cell whose long text wraps and scrolls inside a box
// of a few lines instead of widening the table.
function cell(text, cls) {
  const td = el('td', null, cls);
  if (text) td.append(el('div', text, 'cellbox'));
  return td;
}

// Tools

let toolList = [];

// hints names the MCP hints a tool states; an unstated hint is unknown
// and left out.
function hints(a) {
  if (!a) return [];
  const out = [];
  if (a.readOnlyHint === true) out.push(['read-only', '']);
  if (a.destructiveHint === true) out.push(['destructive', 'bad']);
  if (a.destructiveHint === false && a.readOnlyHint !== true) out.push(['not destructive', '']);
  if (a.idempotentHint === true) out.push(['idempotent', '']);
  if (a.openWorldHint === true) out.push(['open world', '']);
  if (a.openWorldHint === false) out.push(['closed world', '']);
  return out;
}

// describe splits a description from its title: an OpenAPI tool's
// description starts with its summary, which is also its title.
function describe(t) {
  const title = t.title && t.title !== t.name ? t.title : '';
  let d = (t.description || '').trim();
  if (title && d.startsWith(title)) {
    const rest = d.slice(title.length);
    if (rest === '' || /^\s*\n/.test(rest)) d = rest.trim();
  }
  return { title, description: d };
}

async function tools() {
  toolList = (await getJSON('/ui/api/tools')) || [];
  const body = document.querySelector('#tool-table tbody');
  const sel = document.getElementById('try-tool');
  body.replaceChildren();
  sel.replaceChildren();
  for (const t of toolList) {
    const tr = el('tr');
    tr.dataset.tool = t.name;
    const { title, description } = describe(t);
    const name = el('td', null, 'tool');
    name.append(el('strong', t.name, 'name'));
    if (title) name.append(el('div', title, 'title'));
    if (description) name.append(el('div', description, 'hint desc'));
    const safety = el('td');
    safety.append(el('span', t.safety, 'tag safety-' + String(t.safety).toLowerCase()));
    if (t.sensitivity && t.sensitivity !== 'NONE') safety.append(el('span', t.sensitivity, 'tag sensitive'));
    const ann = el('td');
    for (const [h, cls] of hints(t.annotations)) ann.append(el('span', h, 'tag ' + cls));
    tr.append(name, el('td', t.source), safety, ann);
    tr.addEventListener('click', () => { sel.value = t.name; showSchema(); });
    body.append(tr);
    const o = el('option', t.name);
    o.value = t.name;
    sel.append(o);
  }
  showSchema();
}

function showSchema() {
  const t = toolList.find((x) => x.name === document.getElementById('try-tool').value);
  document.getElementById('try-schema').textContent = t && t.schema ? JSON.stringify(t.schema, null, 2) : '';
  for (const tr of document.querySelectorAll('#tool-table tbody tr')) tr.classList.toggle('selected', !!t && tr.dataset.tool === t.name);
}

// pretty indents a result that is JSON and leaves any other text as it is.
function pretty(s) {
  try { return JSON.stringify(JSON.parse(s), null, 2); } catch { return s; }
}

async function run() {
  const out = document.getElementById('try-out');
  out.className = '';
  let args;
  try { args = JSON.parse(document.getElementById('try-args').value || '{}'); } catch (e) {
    out.className = 'bad';
    out.replaceChildren(el('p', 'The arguments are not JSON: ' + e.message, 'verdict'));
    return;
  }
  const r = await fetch('/ui/api/call', { method: 'POST', credentials: 'same-origin', headers: { ...H, 'Content-Type': 'application/json' },
    body: JSON.stringify({ tool: document.getElementById('try-tool').value, arguments: args, justification: document.getElementById('try-why').value }) });
  const j = await r.json();
  out.replaceChildren();
  if (j.error) { out.className = 'bad'; out.append(el('p', j.error, 'verdict')); return; }
  const ok = j.status === 'ok' && !j.is_error;
  out.className = ok ? 'ok' : 'bad';
  const d = j.decision || {};
  const verdict = el('p', null, 'verdict');
  verdict.append(el('span', j.status, 'outcome'), ` — ${d.effect || ''}${d.rule ? ' by ' + d.rule : ''}${d.reason ? ': ' + d.reason : ''}`);
  out.append(verdict);
  if (j.result) out.append(el('pre', pretty(j.result), 'result'));
}

// Live feed

// who names an event's principal and, when it had one, its key.
function who(e, fallback) {
  const p = e.principal || fallback || '';
  return e.key_id ? `${p} (${e.key_id})` : p;
}

// tokens is a model request's usage, input and output; a negative count
// is unknown.
function tokens(u) {
  if (!u) return { text: '', detail: '' };
  const n = (v) => (v >= 0 ? v.toLocaleString() : '?');
  if (u.input_tokens <= 0 && u.output_tokens <= 0) return { text: '', detail: '' };
  const detail = [`${n(u.input_tokens)} input tokens`, `${n(u.output_tokens)} output tokens`];
  if (u.reasoning_tokens > 0) detail.push(`${n(u.reasoning_tokens)} of them reasoning`);
  if (u.cache_read_tokens > 0) detail.push(`${n(u.cache_read_tokens)} read from cache`);
  if (u.cache_write_tokens > 0) detail.push(`${n(u.cache_write_tokens)} written to cache`);
  return { text: `${n(u.input_tokens)} in / ${n(u.output_tokens)} out`, detail: detail.join(', ') };
}

// ids is a feed row's hover text: the call id its audit record and span
// carry (gen_ai.tool.call.id, or a model request's toolgate.request_id)
// and its trace.
function ids(id, trace) {
  return [id ? `id ${id}` : '', trace ? `trace ${trace}` : ''].filter(Boolean).join('\n');
}

// stamp is a feed row's time cell: the time of day, the date on hover.
function stamp(t) {
  const td = el('td', clock(t), 'nowrap num');
  td.title = new Date(t).toLocaleString();
  return td;
}

function feedRow(e) {
  const tr = el('tr');
  if (e.kind === 'call') {
    const c = e.call;
    const ok = c.status === 'ok';
    tr.className = ok ? 'ok' : 'bad';
    if (c.parent) {
      // A call a model made through the gateway: shown under its request
      // once the request's row comes (see feed).
      tr.dataset.parent = c.parent;
      tr.classList.add('child');
    }
    const name = el('td', c.parent ? `↳ ${c.tool}` : c.tool, 'name');
    name.title = ids(c.call_id, e.trace_id);
    tr.append(stamp(c.time), el('td', c.proposed ? 'proposal' : 'call'), el('td', who(e, c.principal)), name,
      el('td', c.status, 'outcome'), el('td', ms(c.duration_ns / 1e6), 'nowrap num'), el('td', ''), cell(ok ? '' : `${c.rule}: ${c.reason}`),
      cell(c.args ? JSON.stringify(c.args) : '', 'mono'), cell(c.result, 'mono'));
  } else {
    const q = e.request;
    const ok = q.status < 400 && !q.error;
    tr.className = ok ? 'ok' : 'bad';
    const lat = el('td', ms(q.duration_ns / 1e6), 'nowrap num');
    if (q.ttft_ns > 0) lat.title = `first token after ${ms(q.ttft_ns / 1e6)}`;
    const tk = tokens(q.usage);
    const use = el('td', tk.text, 'tokens num');
    if (tk.detail) use.title = tk.detail;
    if (q.priced) {
      // What the request cost at the configured price; unpriced
      // requests show their tokens alone.
      if (tk.text) use.append(el('br'));
      use.append(el('span', usd(q.cost_usd || 0), 'cost'));
      use.title = `${tk.detail ? tk.detail + '; ' : ''}cost at the configured price: $${q.cost_usd || 0}`;
    }
    const name = el('td', `${q.model} → ${q.provider || '—'}`, 'name');
    name.title = ids(q.id, e.trace_id);
    tr.append(stamp(q.time), el('td', 'model'), el('td', who(e, '')), name,
      el('td', String(q.status), 'outcome'), lat, use, cell(q.error || ''),
      cell(q.front ? `via ${q.front}` : '', 'mono'), cell(q.finish ? `finish: ${q.finish}` : '', 'mono'));
  }
  return tr;
}

let providerRefresh = 0, spendRefresh = 0;

function feed() {
  const body = document.querySelector('#feed-table tbody');
  let last = 0;
  const es = new EventSource('/ui/api/feed');
  es.onmessage = (m) => {
    const e = JSON.parse(m.data);
    if (e.seq <= last) return; // replayed after a reconnect
    last = e.seq;
    const row = feedRow(e);
    body.prepend(row);
    if (e.kind === 'request' && e.request.id) {
      // The calls its model made came first: move them under it, newest
      // first as the feed is.
      const kids = [...body.querySelectorAll('tr[data-parent]')].filter((r) => r.dataset.parent === e.request.id);
      row.after(...kids);
    }
    while (body.rows.length > 500) body.deleteRow(-1);
    if (e.kind === 'request' && active('providers') && !providerRefresh) {
      providerRefresh = setTimeout(() => { providerRefresh = 0; providers(); }, 1000);
    }
    // Spend is written every second: look again a little after that.
    if (e.kind === 'request' && active('spend') && !spendRefresh) {
      spendRefresh = setTimeout(() => { spendRefresh = 0; spend(); }, 2000);
    }
  };
}

// Audit trail

function toRFC3339(v) { return v ? new Date(v).toISOString() : ''; }

// noAudit says that this server keeps no audit log, and how to keep one,
// in place of the search.
function noAudit() {
  const box = document.getElementById('audit-off');
  box.replaceChildren(
    el('p', 'This server keeps no audit log, so there is nothing to search or verify.', 'lead'),
    el('p', 'To keep one, set audit.db in the server\'s config to a SQLite file and restart it:'),
    el('pre', 'audit:\n  db: /var/lib/toolgate/audit.db'),
    el('p', 'Every call is then recorded in a hash chain that this page searches and verifies (audit.store: postgres keeps it in PostgreSQL instead).', 'hint'));
  box.hidden = false;
  for (const id of ['audit-form', 'verify-out', 'audit-wrap']) document.getElementById(id).hidden = true;
}

// modelKeyID is the key id in a model record's result (a JSON object
// the gateway writes), '' when it has none or the result is not JSON.
function modelKeyID(result) {
  try {
    const v = JSON.parse(result);
    return v && typeof v.key_id === 'string' ? v.key_id : '';
  } catch { return ''; }
}

// ruleCell is a rule's name, which may break after a dot
// (builtin.write) on a narrow window rather than inside a word.
function ruleCell(rule) {
  const td = el('td');
  (rule || '').split('.').forEach((part, i) => td.append(...(i > 0 ? ['.', el('wbr'), part] : [part])));
  return td;
}

async function audit(ev) {
  if (ev) ev.preventDefault();
  const f = new FormData(document.getElementById('audit-form'));
  const q = new URLSearchParams();
  for (const [k, v] of f) if (v) q.set(k, k === 'since' || k === 'until' ? toRFC3339(v) : v);
  const rows = await getJSON('/ui/api/audit?' + q);
  const body = document.querySelector('#audit-table tbody');
  body.replaceChildren();
  if (rows === null) return;
  if (!Array.isArray(rows)) {
    const tr = el('tr', null, 'bad');
    const td = el('td', rows.error || 'The audit log could not be read.', 'outcome');
    td.colSpan = 10;
    tr.append(td);
    body.append(tr);
    return;
  }
  for (const r of rows) {
    const tr = el('tr', null, r.status === 'ok' ? 'ok' : 'bad');
    tr.dataset.seq = r.seq;
    const chain = el('td', null, 'mono hash');
    chain.append(el('div', r.hash.slice(0, 8)), el('div', '← ' + r.prev.slice(0, 8), 'hint'));
    chain.title = `hash ${r.hash}\nprev ${r.prev}`;
    const when = el('td', null, 'nowrap');
    when.append(el('div', new Date(r.time).toLocaleDateString()), el('div', clock(r.time)));
    // The tool (or model), then what the record is and the ids that join
    // it to its span and to the model request it was made in.
    const what = el('td', null, 'name');
    what.append(el('div', r.tool));
    const refs = [r.kind, r.call_id, r.parent ? `in ${r.parent}` : ''].filter(Boolean).join(' · ');
    if (refs) what.append(el('div', refs, 'hint ids'));
    // A model record names its key in its result: shown under the
    // principal, as the feed shows it.
    const who = el('td', null);
    who.append(el('div', r.principal));
    const kid = r.kind === 'model' ? modelKeyID(r.result) : '';
    if (kid) who.append(el('div', kid, 'hint ids'));
    tr.append(el('td', r.seq, 'num'), when, who, what, el('td', r.status, 'outcome'),
      ruleCell(r.rule), cell(r.reason), cell(r.args, 'mono'), cell(r.result, 'mono'), chain);
    body.append(tr);
  }
  if (rows.length === 0) {
    const tr = el('tr');
    const td = el('td', 'No records match.', 'hint');
    td.colSpan = 10;
    tr.append(td);
    body.append(tr);
  }
}

async function verify() {
  const out = document.getElementById('verify-out');
  out.replaceChildren(el('p', 'Checking the chain…'));
  const r = await fetch('/ui/api/verify', { method: 'POST', credentials: 'same-origin', headers: H });
  const j = await r.json();
  out.replaceChildren();
  if (j.error) { out.append(el('p', j.error, 'bad')); return; }
  out.append(el('p', j.summary.split('\n')[0], j.ok ? 'ok' : 'bad'));
  const list = el('ul');
  for (const p of j.problems || []) {
    list.append(el('li', `record ${p.seq}: ${p.kind} — ${p.detail}`));
    const row = document.querySelector(`#audit-table tr[data-seq="${Number(p.seq)}"]`);
    if (row) row.classList.add('broken');
  }
  out.append(list);
}

// Providers

// nice rounds a step up to 1, 2 or 5 times a power of ten.
function nice(step) {
  const p = 10 ** Math.floor(Math.log10(step));
  for (const m of [1, 2, 5, 10]) if (m * p >= step) return m * p;
  return 10 * p;
}

const timeSteps = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 21600, 43200, 86400].map((s) => s * 1000);

// chart draws a provider's requests as latency over time: successes as
// dots on a line, failures as red crosses, p50 and p95 as dashed lines.
function chart(p, width) {
  const W = Math.max(width, 280), Hh = 200;
  const m = { l: 58, r: 44, t: 12, b: 42 };
  const pw = W - m.l - m.r, ph = Hh - m.t - m.b;
  const pts = p.points || [];
  const root = svg('svg', { viewBox: `0 0 ${W} ${Hh}`, width: W, height: Hh, role: 'img', class: 'latency' });
  root.append(svg('title', {}, `${p.provider}: latency of the last ${plural(pts.length, 'request')}`));

  let t0 = Math.min(...pts.map((x) => x.t)), t1 = Math.max(...pts.map((x) => x.t));
  // A margin either side, so that no mark sits on the y axis.
  if (t1 - t0 < 4000) { const mid = (t0 + t1) / 2; t0 = mid - 2000; t1 = mid + 2000; }
  const pad = (t1 - t0) * 0.04;
  t0 -= pad; t1 += pad;
  const top = Math.max(1, p.p95_ms, ...pts.map((x) => x.ms));
  const yStep = nice(top / 4);
  const yMax = Math.ceil(top / yStep) * yStep;
  const X = (t) => m.l + (t - t0) / (t1 - t0) * pw;
  const Y = (v) => m.t + ph - v / yMax * ph;

  // Grid and y axis: ms, a few ticks.
  const grid = svg('g', { class: 'grid' });
  const yAxis = svg('g', { class: 'axis y' });
  for (let v = 0; v <= yMax + yStep / 2; v += yStep) {
    grid.append(svg('line', { x1: m.l, x2: m.l + pw, y1: Y(v), y2: Y(v) }));
    yAxis.append(svg('text', { x: m.l - 6, y: Y(v) + 4, class: 'end' }, Number(v.toPrecision(6))));
  }
  yAxis.append(svg('line', { x1: m.l, x2: m.l, y1: m.t, y2: m.t + ph }));
  yAxis.append(svg('text', { x: 0, y: 0, class: 'label middle', transform: `translate(14 ${m.t + ph / 2}) rotate(-90)` }, 'latency (ms)'));

  // x axis: local time, ticks a round number of seconds or minutes apart.
  const xAxis = svg('g', { class: 'axis x' });
  const want = Math.max(2, Math.floor(pw / 110));
  const tStep = timeSteps.find((s) => (t1 - t0) / s <= want) || timeSteps[timeSteps.length - 1];
  for (let t = Math.ceil(t0 / tStep) * tStep; t <= t1; t += tStep) {
    xAxis.append(svg('line', { x1: X(t), x2: X(t), y1: m.t + ph, y2: m.t + ph + 4 }));
    xAxis.append(svg('text', { x: X(t), y: m.t + ph + 16, class: 'middle' }, clock(t)));
  }
  xAxis.append(svg('line', { x1: m.l, x2: m.l + pw, y1: m.t + ph, y2: m.t + ph }));
  xAxis.append(svg('text', { x: m.l + pw / 2, y: Hh - 4, class: 'label middle' }, 'time'));
  root.append(grid, yAxis, xAxis);

  // p50 and p95 of the successful requests.
  const ok = pts.filter((x) => x.ok);
  if (ok.length > 0) {
    const y50 = Y(p.p50_ms), y95 = Y(p.p95_ms);
    const apart = Math.abs(y50 - y95) < 11;
    for (const [name, y, dy] of [['p95', y95, apart ? -3 : 4], ['p50', y50, apart ? 10 : 4]]) {
      root.append(svg('line', { x1: m.l, x2: m.l + pw, y1: y, y2: y, class: 'q ' + name }));
      root.append(svg('text', { x: m.l + pw + 4, y: y + dy, class: 'q ' + name }, name));
    }
  }

  // Successes: a faint line through dots. Failures: red crosses, drawn
  // last so that no dot hides one.
  if (ok.length > 1) root.append(svg('polyline', { points: ok.map((x) => `${X(x.t).toFixed(1)},${Y(x.ms).toFixed(1)}`).join(' '), class: 'trend' }));
  for (const x of ok) {
    const c = svg('circle', { cx: X(x.t), cy: Y(x.ms), r: 3.5, class: 'okpt' });
    c.append(svg('title', {}, `${clock(x.t)}: ${ms(x.ms)}, HTTP ${x.status}`));
    root.append(c);
  }
  for (const x of pts.filter((x) => !x.ok)) {
    const cx = X(x.t), cy = Y(x.ms), s = 5;
    const f = svg('path', { d: `M${cx - s},${cy - s}L${cx + s},${cy + s}M${cx - s},${cy + s}L${cx + s},${cy - s}`, class: 'fail' });
    f.append(svg('title', {}, `${clock(x.t)}: failed after ${ms(x.ms)}${x.status ? ', HTTP ' + x.status : ''}`));
    root.append(f);
  }
  return root;
}

let providerData = [];

async function providers() {
  const ps = await getJSON('/ui/api/providers');
  if (ps === null) return;
  providerData = Array.isArray(ps) ? ps : [];
  drawProviders();
}

function drawProviders() {
  const box = document.getElementById('provider-charts');
  box.replaceChildren();
  if (providerData.length === 0) { box.append(el('p', 'No gateway requests yet.', 'hint')); return; }
  for (const p of providerData) {
    const div = el('div', null, 'chart');
    div.dataset.provider = p.provider;
    box.append(div);
    div.append(el('h3', p.provider));
    const parts = [el('span', plural(p.requests, 'request'))];
    const fails = el('span', plural(p.errors, 'failure'), p.errors > 0 ? 'bad' : '');
    if (p.errors > 0 && p.requests > 0) fails.textContent += ` (${Math.round(100 * p.errors / p.requests)}%)`;
    parts.push(fails);
    if (p.requests > p.errors) parts.push(el('span', `p50 ${ms(p.p50_ms)}`), el('span', `p95 ${ms(p.p95_ms)}`));
    else parts.push(el('span', 'no successful request to time', 'hint'));
    const stats = el('p', null, 'stats');
    parts.forEach((x, i) => stats.append(...(i > 0 ? [' · ', x] : [x])));
    div.append(stats);
    const f = p.last_failure;
    if (f) div.append(el('p', `Last failure, at ${clock(f.t)}: ${f.status ? 'HTTP ' + f.status : 'no answer'}${f.error ? ', ' + f.error : ''}`, 'lasterr'));
    const legend = el('p', null, 'legend');
    legend.append(el('span', 'success', 'key okkey'), el('span', 'failure', 'key failkey'), el('span', 'p50', 'key p50key'), el('span', 'p95', 'key p95key'));
    div.append(legend);
    div.append(chart(p, div.clientWidth - 24));
  }
}

// Spend

// SPEND_LINES bounds the chart's lines: the costliest groups get one
// each and the rest are summed into one, "other".
const SPEND_LINES = 8;
const compact = new Intl.NumberFormat(undefined, { notation: 'compact', maximumFractionDigits: 1 });

// usd is a cost in dollars: cents from a dollar up, two significant
// digits below, so that a small cost is not shown as $0.00.
function usd(v) {
  if (v === 0) return '$0';
  if (v >= 1000) return '$' + Math.round(v).toLocaleString();
  if (v >= 1) return '$' + v.toFixed(2);
  return '$' + v.toFixed(Math.min(12, Math.max(2, 1 - Math.floor(Math.log10(v)))));
}

function count(v) { return Number(v).toLocaleString(); }

// dayText is a UTC day (2026-03-05) as the reader writes dates.
function dayText(d, opts) {
  return new Date(d + 'T00:00:00Z').toLocaleDateString(undefined, { timeZone: 'UTC', ...(opts || { year: 'numeric', month: 'short', day: 'numeric' }) });
}

// per names a budget's period.
function per(s) {
  if (!s) return 'for ever';
  if (s === 86400) return 'a day';
  if (s === 3600) return 'an hour';
  if (s % 86400 === 0) return `per ${s / 86400} days`;
  if (s % 3600 === 0) return `per ${s / 3600} hours`;
  if (s % 60 === 0) return `per ${s / 60} minutes`;
  return `per ${plural(s, 'second')}`;
}

function budgetText(b) {
  const parts = [];
  if (b.usd) parts.push(b.usd >= 1 ? '$' + b.usd.toFixed(2) : usd(b.usd));
  if (b.tokens) parts.push(`${count(b.tokens)} tokens`);
  return `budget ${parts.join(' and ')} ${per(b.period_seconds)}`;
}

// groupName is a group as the page shows it; the server's "other"
// says how many it sums.
function groupName(g, by) {
  return g.merged ? `other (${plural(g.merged, by)})` : g.group;
}

// lineClass is the colour class of the i-th group's line (by cost):
// its own for the first ones, the "other" one's for the rest.
function lineClass(i, n) {
  return n <= SPEND_LINES || i < SPEND_LINES - 1 ? 's' + i : 'sother';
}

// spendSeries are the chart's lines, of cost or tokens per day: one per
// group up to SPEND_LINES, else the costliest and one for the rest.
function spendSeries(a, field) {
  const gs = a.groups;
  const own = gs.length <= SPEND_LINES ? gs : gs.slice(0, SPEND_LINES - 1);
  const out = own.map((g, i) => ({ g, name: groupName(g, a.by), cls: g.merged ? 'sother' : 's' + i, values: g[field] }));
  if (gs.length > SPEND_LINES) {
    const rest = gs.slice(SPEND_LINES - 1);
    const n = rest.reduce((s, g) => s + (g.merged || 1), 0);
    out.push({ name: `other (${plural(n, a.by)})`, cls: 'sother', values: a.days.map((_, d) => rest.reduce((s, g) => s + g[field][d], 0)) });
  }
  return out;
}

// spendChart draws cost per day (tokens when nothing is priced), a
// line per group, and a dashed line at the budget of each key whose
// budget is per day. A budget far above every day's spend would flatten
// the lines: it is named under the chart instead.
function spendChart(a, width) {
  const priced = a.total.cost_usd > 0;
  const fmt = priced ? usd : (v) => compact.format(v);
  const series = spendSeries(a, priced ? 'daily_cost_usd' : 'daily_tokens');
  const n = a.days.length;
  const W = Math.max(width, 280), Hh = 240;
  const m = { l: 66, r: 16, t: 16, b: 42 };
  const pw = W - m.l - m.r, ph = Hh - m.t - m.b;
  const dataMax = Math.max(0, ...series.flatMap((s) => s.values));
  const budgets = [];
  for (const s of series) {
    const b = s.g && s.g.budget;
    const v = b && b.period_seconds === 86400 ? (priced ? b.usd : b.tokens) : 0;
    if (v > 0) budgets.push({ s, v, drawn: dataMax === 0 || v <= 5 * dataMax });
  }
  const top = Math.max(dataMax, ...budgets.filter((b) => b.drawn).map((b) => b.v)) || (priced ? 0.01 : 10);
  const yStep = nice(top / 4);
  const yMax = Math.ceil(top / yStep - 1e-9) * yStep;
  const digits = priced && yStep < 1 ? Math.max(2, -Math.floor(Math.log10(yStep) + 1e-9)) : 0;
  const tick = priced ? (v) => (v === 0 ? '$0' : '$' + v.toFixed(digits)) : (v) => compact.format(v);
  const X = (i) => (n === 1 ? m.l + pw / 2 : m.l + 8 + i / (n - 1) * (pw - 16));
  const Y = (v) => m.t + ph - v / yMax * ph;
  const what = priced ? 'cost' : 'tokens';

  const root = svg('svg', { viewBox: `0 0 ${W} ${Hh}`, width: W, height: Hh, role: 'img', class: 'spend' });
  root.append(svg('title', {}, `${what} per day and ${a.by}, ${dayText(a.days[0])} to ${dayText(a.days[n - 1])}`));
  const grid = svg('g', { class: 'grid' });
  const yAxis = svg('g', { class: 'axis y' });
  for (let k = 0; k * yStep <= yMax + yStep / 2; k++) {
    const v = k * yStep;
    grid.append(svg('line', { x1: m.l, x2: m.l + pw, y1: Y(v), y2: Y(v) }));
    yAxis.append(svg('text', { x: m.l - 6, y: Y(v) + 4, class: 'end' }, tick(v)));
  }
  yAxis.append(svg('line', { x1: m.l, x2: m.l, y1: m.t, y2: m.t + ph }));
  yAxis.append(svg('text', { x: 0, y: 0, class: 'label middle', transform: `translate(13 ${m.t + ph / 2}) rotate(-90)` }, priced ? 'cost per day (USD)' : 'tokens per day'));

  // x axis: UTC days, today always labelled, ticks a round number of
  // days apart.
  const xAxis = svg('g', { class: 'axis x' });
  const want = Math.max(2, Math.floor(pw / 72));
  const step = [1, 2, 7, 14, 30].find((s) => n / s <= want) || 30;
  for (let i = n - 1; i >= 0; i -= step) {
    xAxis.append(svg('line', { x1: X(i), x2: X(i), y1: m.t + ph, y2: m.t + ph + 4 }));
    xAxis.append(svg('text', { x: X(i), y: m.t + ph + 16, class: i === n - 1 && n > 1 ? 'end' : 'middle' },
      i === n - 1 ? 'today' : dayText(a.days[i], { month: 'short', day: 'numeric' })));
  }
  xAxis.append(svg('line', { x1: m.l, x2: m.l + pw, y1: m.t + ph, y2: m.t + ph }));
  xAxis.append(svg('text', { x: m.l + pw / 2, y: Hh - 4, class: 'label middle' }, 'day (UTC)'));
  root.append(grid, yAxis, xAxis);

  // Each budget is labelled above its line; keys with the same budget
  // share a label, and a label that would touch the one before goes
  // under its line.
  const labels = [];
  for (const b of budgets.filter((x) => x.drawn)) {
    const y = Y(b.v);
    const g = svg('g', { class: 'budget ' + b.s.cls });
    g.dataset.group = b.s.g.group;
    const line = svg('line', { x1: m.l, x2: m.l + pw, y1: y, y2: y, class: 'budget' });
    line.append(svg('title', {}, `${b.s.name}: ${budgetText(b.s.g.budget)}`));
    g.append(line);
    root.append(g);
    const same = labels.find((l) => l.v === b.v);
    if (same) { same.names.push(b.s.name); continue; }
    const near = labels.some((l) => Math.abs(l.y - (y - 4)) < 12);
    labels.push({ v: b.v, y: near ? y + 13 : y - 4, names: [b.s.name], g });
  }
  for (const l of labels) {
    const t = svg('text', { x: m.l + pw - 4, y: l.y, class: 'end budget' + (l.names.length > 1 ? ' shared' : '') }, `${l.names.join(', ')}: ${fmt(l.v)} a day`);
    (l.names.length > 1 ? root : l.g).append(t);
  }
  // The costliest last, on top; "other" first, beneath. Today is not
  // over: the way to it is dotted. Days too close together for a dot
  // each get none.
  const dots = n === 1 || (pw - 16) / (n - 1) >= 9;
  for (const s of [...series].reverse()) {
    const g = svg('g', { class: 'series ' + s.cls });
    g.dataset.group = s.name;
    g.append(svg('title', {}, `${s.name}: ${fmt(s.values.reduce((x, y) => x + y, 0))} in ${plural(n, 'day')}`));
    const pts = s.values.map((v, i) => `${X(i).toFixed(1)},${Y(v).toFixed(1)}`);
    if (n > 2) g.append(svg('polyline', { points: pts.slice(0, n - 1).join(' '), class: 'line' }));
    if (n > 1) g.append(svg('polyline', { points: pts.slice(n - 2).join(' '), class: 'line today' }));
    s.values.forEach((v, i) => {
      if (v <= 0 || !dots) return;
      const c = svg('circle', { cx: X(i), cy: Y(v), r: 3 });
      c.append(svg('title', {}, `${s.name}, ${dayText(a.days[i])}: ${fmt(v)}`));
      g.append(c);
    });
    root.append(g);
  }

  const legend = el('p', null, 'legend');
  for (const s of series) legend.append(el('span', s.name, 'key line ' + s.cls));
  if (budgets.some((b) => b.drawn)) legend.append(el('span', 'budget a day', 'key budgetkey'));
  if (n > 1) legend.append(el('span', 'today, so far', 'key todaykey'));
  const notes = budgets.filter((b) => !b.drawn).map((b) => {
    const most = Math.max(...b.s.values);
    return el('p', `${b.s.name}'s budget of ${fmt(b.v)} a day is off the scale: its highest day used ${(100 * most / b.v).toPrecision(2)}% of it.`, 'hint offscale');
  });
  return { legend, root, notes };
}

let spendData = null, spendAsked = 0;

// noSpend says that this server keeps no spend, and how to keep it.
function noSpend() {
  const box = document.getElementById('spend-off');
  box.replaceChildren(
    el('p', 'This server keeps no spend, so there is nothing to show.', 'lead'),
    el('p', 'Spend is kept when the config has providers (the model gateway) and a keys store: audit.db, or keys.db (and keys.store is not none). For example:'),
    el('pre', 'audit:\n  db: /var/lib/toolgate/audit.db    # or keys: {db: /var/lib/toolgate/keys.db}\nproviders:\n  - name: gpt\n    …\npricing:                            # USD per million tokens\n  gpt: {input: 0.25, output: 2.0}'),
    el('p', 'Every answered model request is then summed per day, key, principal, model and provider, priced by pricing; toolgate keys create makes keys with budgets, which this page draws.', 'hint'));
  box.hidden = false;
  for (const id of ['spend-form', 'spend-report']) document.getElementById(id).hidden = true;
}

async function spend() {
  const f = new FormData(document.getElementById('spend-form'));
  const asked = ++spendAsked;
  const r = await fetch('/ui/api/spend?' + new URLSearchParams({ by: f.get('by'), since: f.get('since') }), { credentials: 'same-origin' });
  if (r.status === 401) { location.href = '/ui/'; return; }
  const a = await r.json();
  if (asked !== spendAsked) return; // a later answer, to a later question, is drawn instead
  if (r.status === 404) { noSpend(); return; }
  document.getElementById('spend-report').hidden = false;
  const note = document.getElementById('spend-note');
  if (a.error) {
    note.textContent = a.error;
    note.hidden = false;
    return;
  }
  note.textContent = a.note || '';
  note.hidden = !a.note;
  spendData = a;
  drawSpend();
}

// breakable is an element whose text may break after _ - . # / and
// before an opening bracket, as key ids, model names and principals
// are written, rather than inside a word.
function breakable(tag, text) {
  const e = el(tag);
  for (const part of String(text).split(/(?<=[_.#/-])|(?=\()/)) {
    if (e.childNodes.length > 0) e.append(el('wbr'));
    e.append(part);
  }
  return e;
}

function spendRow(cells, tag) {
  const tr = el('tr');
  for (const [i, c] of cells.entries()) tr.append(i === 0 ? c : el(tag || 'td', c, 'num nowrap'));
  return tr;
}

function drawSpend() {
  const a = spendData;
  if (!a) return;
  const groups = a.groups, t = a.total, last = a.days[a.days.length - 1];
  const priced = t.cost_usd > 0;
  const summary = document.getElementById('spend-summary');
  const parts = [`${plural(t.requests, 'request')}`, `${count(t.input_tokens + t.output_tokens)} tokens`];
  if (priced) parts.push(usd(t.cost_usd));
  if (t.unpriced > 0) parts.push(`${plural(t.unpriced, 'unpriced request')}`);
  summary.replaceChildren(el('strong', a.days.length > 1 ? `${dayText(a.days[0])} – ${dayText(last)}` : dayText(last)),
    ` (${plural(a.days.length, 'day')}, UTC): ${parts.join(' · ')}`);
  if (t.requests > 0 && !priced) summary.append(el('span', ' — nothing was priced, so the chart shows tokens.', 'hint'));

  const box = document.getElementById('spend-chart');
  box.replaceChildren();
  box.hidden = groups.length === 0;
  if (groups.length > 0) {
    const c = spendChart(a, box.clientWidth - 24);
    box.append(c.legend, c.root, ...c.notes);
  }

  document.getElementById('spend-group').textContent = a.by[0].toUpperCase() + a.by.slice(1);
  const body = document.querySelector('#spend-table tbody');
  body.replaceChildren();
  for (const [i, g] of groups.entries()) {
    const name = el('td', null, 'group');
    const head = el('div', null, 'gname');
    head.append(el('span', null, 'swatch ' + lineClass(i, groups.length)), breakable('strong', groupName(g, a.by)));
    name.append(head);
    const about = [];
    if (g.principal) about.push(g.principal);
    if (g.budget) about.push(budgetText(g.budget));
    if (about.length > 0 || g.revoked) {
      const sub = el('div', about.join(' · '), 'hint');
      if (g.revoked) sub.append(el('span', 'revoked', 'tag bad'));
      name.append(sub);
    }
    const s = g.total;
    const tr = spendRow([name, count(s.requests), count(s.input_tokens), count(s.cached_tokens), count(s.output_tokens), count(s.reasoning_tokens),
      s.unpriced < s.requests ? usd(s.cost_usd) : '—', s.unpriced > 0 ? plural(s.unpriced, 'request') : '']);
    tr.dataset.group = g.group;
    body.append(tr);
  }
  if (groups.length === 0) {
    const tr = el('tr');
    const td = el('td', 'No model requests in these days.', 'hint');
    td.colSpan = 8;
    tr.append(td);
    body.append(tr);
  }
  const foot = document.querySelector('#spend-table tfoot');
  foot.replaceChildren();
  if (groups.length > 1) {
    foot.append(spendRow([el('th', 'Total'), count(t.requests), count(t.input_tokens), count(t.cached_tokens), count(t.output_tokens), count(t.reasoning_tokens),
      t.unpriced < t.requests ? usd(t.cost_usd) : '—', t.unpriced > 0 ? plural(t.unpriced, 'request') : ''], 'th'));
  }
}

let resizing = 0;
window.addEventListener('resize', () => {
  clearTimeout(resizing);
  resizing = setTimeout(() => {
    if (active('providers')) drawProviders();
    if (active('spend')) drawSpend();
  }, 150);
});

async function me() {
  const m = await getJSON('/ui/api/me');
  if (!m) return;
  document.getElementById('me').textContent = m.principal;
  if (m.audit === false) noAudit();
  else audit();
}

document.addEventListener('DOMContentLoaded', () => {
  tabs();
  me();
  tools();
  feed();
  document.getElementById('try-tool').addEventListener('change', showSchema);
  document.getElementById('try-run').addEventListener('click', run);
  document.getElementById('audit-form').addEventListener('submit', audit);
  document.getElementById('audit-verify').addEventListener('click', verify);
  document.getElementById('spend-form').addEventListener('change', spend);
  document.getElementById('spend-form').addEventListener('submit', (ev) => { ev.preventDefault(); spend(); });
});
