// The toolgate console: plain DOM, no framework, nothing fetched from
// elsewhere. Text from the server is always set with textContent, never
// as HTML.
'use strict';

const H = { 'X-Toolgate-Console': '1' };

function el(tag, text, cls) {
  const e = document.createElement(tag);
  if (text !== undefined && text !== null) e.textContent = String(text);
  if (cls) e.className = cls;
  return e;
}

async function getJSON(url) {
  const r = await fetch(url, { credentials: 'same-origin' });
  if (r.status === 401) { location.href = '/ui/'; return null; }
  return r.json();
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

let toolList = [];

async function tools() {
  toolList = (await getJSON('/ui/api/tools')) || [];
  const body = document.querySelector('#tool-table tbody');
  const sel = document.getElementById('try-tool');
  body.replaceChildren();
  sel.replaceChildren();
  for (const t of toolList) {
    const tr = el('tr');
    tr.dataset.tool = t.name;
    const name = el('td');
    name.append(el('strong', t.name), el('div', t.description, 'hint'));
    const ann = t.annotations ? Object.entries(t.annotations).filter(([, v]) => v !== null && v !== '').map(([k, v]) => `${k}: ${v}`).join(', ') : '';
    tr.append(name, el('td', t.source), el('td', t.safety + (t.sensitivity ? ' / ' + t.sensitivity : '')), el('td', ann, 'mono'));
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
}

async function run() {
  const out = document.getElementById('try-out');
  let args;
  try { args = JSON.parse(document.getElementById('try-args').value || '{}'); } catch (e) { out.replaceChildren(el('p', 'The arguments are not JSON: ' + e.message, 'bad')); return; }
  const r = await fetch('/ui/api/call', { method: 'POST', credentials: 'same-origin', headers: { ...H, 'Content-Type': 'application/json' },
    body: JSON.stringify({ tool: document.getElementById('try-tool').value, arguments: args, justification: document.getElementById('try-why').value }) });
  const j = await r.json();
  out.replaceChildren();
  if (j.error) { out.append(el('p', j.error, 'bad')); return; }
  out.append(el('p', `${j.status} — ${j.decision.effect} by ${j.decision.rule}: ${j.decision.reason || ''}`, j.status === 'ok' ? 'ok' : 'bad'));
  out.id = 'try-out';
  out.append(el('pre', j.result));
}

// who names an event's principal and, when it had one, its key.
function who(e, fallback) {
  const p = e.principal || fallback || '';
  return e.key_id ? `${p} (${e.key_id})` : p;
}

function feedRow(e) {
  const tr = el('tr');
  if (e.kind === 'call') {
    const c = e.call;
    const ok = c.status === 'ok';
    tr.className = ok ? 'ok' : 'bad';
    tr.append(el('td', new Date(c.time).toLocaleTimeString()), el('td', 'call'), el('td', who(e, c.principal)), el('td', c.tool),
      el('td', c.status, 'outcome'), el('td', (c.duration_ns / 1e6).toFixed(1) + ' ms'), el('td', ok ? '' : `${c.rule}: ${c.reason}`),
      el('td', c.args ? JSON.stringify(c.args) : '', 'mono clip'), el('td', c.result, 'mono clip'));
  } else {
    const q = e.request;
    const ok = q.status < 400 && !q.error;
    tr.className = ok ? 'ok' : 'bad';
    tr.append(el('td', new Date(q.time).toLocaleTimeString()), el('td', 'model'), el('td', who(e, '')), el('td', `${q.model} → ${q.provider || '—'}`),
      el('td', String(q.status), 'outcome'), el('td', (q.duration_ns / 1e6).toFixed(1) + ' ms'), el('td', q.error || ''),
      el('td', `${q.front}`, 'mono'), el('td', q.finish ? `${q.finish}, ${q.usage.output_tokens} tokens out` : '', 'mono'));
  }
  return tr;
}

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
  };
}

function toRFC3339(v) { return v ? new Date(v).toISOString() : ''; }

async function audit(ev) {
  if (ev) ev.preventDefault();
  const f = new FormData(document.getElementById('audit-form'));
  const q = new URLSearchParams();
  for (const [k, v] of f) if (v) q.set(k, k === 'since' || k === 'until' ? toRFC3339(v) : v);
  const rows = (await getJSON('/ui/api/audit?' + q)) || [];
  const body = document.querySelector('#audit-table tbody');
  body.replaceChildren();
  for (const r of rows) {
    const tr = el('tr', null, r.status === 'ok' ? 'ok' : 'bad');
    tr.dataset.seq = r.seq;
    tr.append(el('td', r.seq), el('td', new Date(r.time).toLocaleString()), el('td', r.principal), el('td', r.tool), el('td', r.status, 'outcome'),
      el('td', r.rule), el('td', r.reason, 'clip'), el('td', r.hash.slice(0, 12) + ' ← ' + r.prev.slice(0, 12), 'mono'));
    body.append(tr);
  }
  if (rows.length === 0) { const tr = el('tr'); tr.append(el('td', 'No records match.')); body.append(tr); }
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

async function providers() {
  const ps = (await getJSON('/ui/api/providers')) || [];
  const box = document.getElementById('provider-charts');
  box.replaceChildren();
  if (ps.length === 0) box.append(el('p', 'No gateway requests yet.', 'hint'));
  const NS = 'http://www.w3.org/2000/svg';
  for (const p of ps) {
    const div = el('div', null, 'chart');
    div.append(el('h3', `${p.provider}: ${p.requests} requests, ${p.errors} errors, p50 ${p.p50_ms.toFixed(1)} ms, p95 ${p.p95_ms.toFixed(1)} ms`));
    const svg = document.createElementNS(NS, 'svg');
    svg.setAttribute('viewBox', '0 0 100 40');
    svg.setAttribute('preserveAspectRatio', 'none');
    const max = Math.max(1, ...p.latency_ms);
    p.latency_ms.forEach((v, i) => {
      const r = document.createElementNS(NS, 'rect');
      const w = 100 / Math.max(p.latency_ms.length, 1);
      const h = 40 * v / max;
      r.setAttribute('x', String(i * w)); r.setAttribute('width', String(Math.max(w - 0.2, 0.2)));
      r.setAttribute('y', String(40 - h)); r.setAttribute('height', String(h));
      r.setAttribute('class', 'ok');
      svg.append(r);
    });
    div.append(svg);
    box.append(div);
  }
}

async function me() {
  const m = await getJSON('/ui/api/me');
  if (m) document.getElementById('me').textContent = m.principal;
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
  audit();
});
