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
  return `${n} ${n === 1 ? one : many || one + 's'}`;
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
// is unknown. The cost of a request joins these once keys carry prices.
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
    tr.append(stamp(c.time), el('td', 'call'), el('td', who(e, c.principal)), el('td', c.tool, 'name'),
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
    tr.append(stamp(q.time), el('td', 'model'), el('td', who(e, '')), el('td', `${q.model} → ${q.provider || '—'}`, 'name'),
      el('td', String(q.status), 'outcome'), lat, use, cell(q.error || ''),
      cell(q.front ? `via ${q.front}` : '', 'mono'), cell(q.finish ? `finish: ${q.finish}` : '', 'mono'));
  }
  return tr;
}

let providerRefresh = 0;

function feed() {
  const body = document.querySelector('#feed-table tbody');
  let last = 0;
  const es = new EventSource('/ui/api/feed');
  es.onmessage = (m) => {
    const e = JSON.parse(m.data);
    if (e.seq <= last) return; // replayed after a reconnect
    last = e.seq;
    body.prepend(feedRow(e));
    while (body.rows.length > 500) body.deleteRow(-1);
    if (e.kind === 'request' && active('providers') && !providerRefresh) {
      providerRefresh = setTimeout(() => { providerRefresh = 0; providers(); }, 1000);
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
    tr.append(el('td', r.seq, 'num'), when, el('td', r.principal), el('td', r.tool, 'name'), el('td', r.status, 'outcome'),
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

let resizing = 0;
window.addEventListener('resize', () => {
  clearTimeout(resizing);
  resizing = setTimeout(() => { if (active('providers')) drawProviders(); }, 150);
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
});
