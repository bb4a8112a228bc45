// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

// The web console in a real browser: Debian's Chromium driven by
// playwright-core, against `toolgate serve` with server.ui on, a demo
// source, a policy that denies one tool and a SQLite audit log. It logs
// in, lists the tools (each description once), runs a denied call and an
// allowed one and finds both in the live feed with the right outcome and
// reason, searches the audit trail, breaks the chain by editing the
// database behind the server's back and sees verify name the record. A
// model request through the gateway (in front of cmd/fakebackend)
// appears in the feed with the principal and key id of its token and its
// tokens. Then, after a try-it call with a long result and model
// requests to three providers (one healthy, one that fails every third
// request, one that cannot be reached), every page fits the window at
// 1280 and 800 pixels wide and the providers page draws each provider's
// latency with labelled axes and its failures apart. A second server
// without an audit log says so on the audit page. The spend page: a key
// made with `toolgate keys create` (a budget of $1 a day), its model
// requests priced by the config, and two weeks of earlier spend written
// into the spend table as a fixture, show in the table per key and on
// the chart with labelled axes, the key's dashed budget line and the
// smallest keys summed as "other"; the server without an audit log (so
// without keys or spend) says how to keep spend. No page throws and
// nothing breaks the CSP. Keys made with `toolgate keys create` log in
// as config tokens do when their principal has the console role; a
// refused login says why (unknown, revoked, no console role), and a
// session opened with a key ends when it is revoked. A request through
// the gateway's mediation (cmd/fakebackend's "agent:policy" model: a
// Bash call the policy denies, listTasks run by the gateway, a Read
// passed to the client) shows in the feed with its three calls under
// it, and model rows show their cost. Screenshots go to
// $TOOLGATE_ARTIFACTS (default .ci/artifacts) as console-PAGE-WIDTH.png.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { writeFileSync, mkdirSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { chromium } from 'playwright-core';
import { root, tempDir, serve, startFakeBackend, binary } from './harness.js';

const ADMIN = 'console-admin-token-7e1f';
const shots = process.env.TOOLGATE_ARTIFACTS ?? path.join(root, '.ci', 'artifacts');
const WIDTHS = [[1280, 800], [800, 900]];
const PAGES = ['tools', 'feed', 'audit', 'providers'];
let server, browser, page, base, db, cfgPath, fake, flaky;
const problems = []; // page errors and CSP violations, of every page

// startFlaky is a backend in front of the fake one that answers every
// third request with a 500 (which the gateway does not retry) and the
// others a little late, so that the chart has a shape.
function startFlaky(upstream) {
  let n = 0;
  const srv = http.createServer(async (req, res) => {
    n++;
    const chunks = [];
    for await (const c of req) chunks.push(c);
    if (n % 3 === 0) {
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: 'flaky backend', type: 'server_error' } }));
      return;
    }
    await new Promise((r) => setTimeout(r, 15 + (n * 37) % 90));
    const up = await fetch(upstream + req.url, { method: req.method, headers: { 'content-type': 'application/json' }, body: Buffer.concat(chunks) });
    res.writeHead(up.status, { 'content-type': up.headers.get('content-type') ?? 'application/json' });
    res.end(Buffer.from(await up.arrayBuffer()));
  });
  return new Promise((resolve) => srv.listen(0, '127.0.0.1', () => resolve({ url: `http://127.0.0.1:${srv.address().port}`, stop: () => srv.close() })));
}

// config is a console config; without db, no audit log.
function config(dir, db) {
  const cfg = path.join(dir, 'console.yaml');
  writeFileSync(cfg, [
    'server:',
    '  ui: true',
    ...(db ? ['audit:', `  db: ${db}`] : []),
    'principals:',
    '  - id: ops',
    '    roles: [admin, writer]',
    '  - id: viewer', // keys of viewer do not open the console
    '    roles: [reader]',
    'auth:',
    '  tokens:',
    '    - principal: ops',
    '      token_env: OPS_TOKEN',
    'policy:',
    '  rules:',
    '    - name: no-deletes',
    '      tools: [deleteTask]',
    '      effect: deny',
    '      reason: tasks are not deleted from the console',
    '    - name: no-rm',
    '      tools: [Bash]',
    '      when: \'args.command.matches("rm\\\\s+-rf")\'',
    '      effect: deny',
    '      reason: no recursive deletes',
    'sources:',
    '  - name: tasks',
    '    demo: {}',
    'providers:',
    '  - name: fake',
    '    model_name: text',
    '    provider_backend: openai_compat',
    `    api_config: {base_url: "${fake.url}/v1"}`,
    '  - name: flaky',
    '    model_name: text',
    '    provider_backend: openai_compat',
    `    api_config: {base_url: "${flaky.url}/v1"}`,
    '  - name: down',
    '    model_name: text',
    '    provider_backend: openai_compat',
    '    api_config: {base_url: "http://127.0.0.1:1/v1"}',
    '  - name: policy_agent',
    '    model_name: "agent:policy"',
    '    provider_backend: openai_compat',
    `    api_config: {base_url: "${fake.url}/v1"}`,
    'gateway:',
    '  mediate_tools: true',
    '  tools: [tasks]',
    '  client_tools:',
    '    - {name: Bash, safety: WRITE}',
    '    - {name: Read, safety: READ}',
    'pricing:',
    '  fake: {input: 1, output: 2}',
    '  policy_agent: {input: 3, output: 15}',
    '',
  ].join('\n'));
  return cfg;
}

async function newPage(viewport = { width: 1280, height: 800 }) {
  const p = await browser.newPage({ viewport });
  p.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  // A refused login or POST logs its status; anything else is a fault.
  p.on('console', (m) => { if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) problems.push(`console error: ${m.text()}`); });
  return p;
}

async function login(p, url) {
  await p.goto(`${url}/ui/`);
  await p.fill('#token', ADMIN);
  await Promise.all([p.waitForNavigation(), p.click('#login')]);
  await p.waitForSelector('#tool-table tbody tr[data-tool="listTasks"]');
}

async function chat(model, token = ADMIN) {
  const r = await fetch(`${base}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model, messages: [{ role: 'user', content: 'Hello' }] }),
  });
  return { status: r.status, body: await r.text() };
}

async function tab(p, name) {
  await p.click(`nav button[data-tab="${name}"]`);
  await p.waitForSelector(`section#${name}.active`);
}

// fits asserts that nothing on the page is wider than the window.
async function fits(p, what) {
  const [scroll, inner] = await p.evaluate(() => [document.documentElement.scrollWidth, window.innerWidth]);
  assert.ok(scroll <= inner, `${what}: the page is ${scroll} px wide in a ${inner} px window`);
}

before(async () => {
  fake = await startFakeBackend();
  flaky = await startFlaky(fake.url);
  const dir = tempDir();
  db = path.join(dir, 'audit.db');
  cfgPath = config(dir, db);
  server = await serve(['--config', cfgPath], { OPS_TOKEN: ADMIN });
  base = server.url.replace(/\/mcp$/, '');
  mkdirSync(shots, { recursive: true });
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-background-networking'],
  });
  page = await newPage();
});

after(async () => {
  await browser?.close();
  await server?.stop();
  flaky?.stop();
  fake?.stop();
});

test('console: log in, tools, a denied and an allowed call in the feed, audit search, a broken chain found', async () => {
  // A wrong token stays on the login page.
  await page.goto(`${base}/ui/`);
  await page.fill('#token', 'not-the-token');
  await Promise.all([page.waitForNavigation(), page.click('#login')]);
  assert.equal(await page.locator('#token').count(), 1);
  assert.equal(await page.textContent('#login-error'), 'Unknown token or key.');

  await page.fill('#token', ADMIN);
  await Promise.all([page.waitForNavigation(), page.click('#login')]);
  await page.waitForSelector('#tool-table tbody tr[data-tool="listTasks"]');
  const tools = await page.locator('#tool-table tbody tr').evaluateAll((rows) => rows.map((r) => r.dataset.tool));
  assert.deepEqual(tools.sort(), ['createTask', 'deleteTask', 'getTask', 'listTasks', 'updateTask']);
  assert.match(await page.locator('#tool-table tbody tr[data-tool="listTasks"]').textContent(), /tasks.*READ/s);

  // Each tool's title and description are on the page once: an OpenAPI
  // description starts with the summary, which is the title too.
  const api = await page.evaluate(async () => (await fetch('/ui/api/tools')).json());
  const pageText = await page.locator('#tools').innerText();
  for (const t of api) {
    const row = await page.locator(`#tool-table tbody tr[data-tool="${t.name}"]`).innerText();
    const rest = t.description.slice(t.title.length).trim();
    assert.ok(rest.length > 0, t.name);
    assert.equal(pageText.split(rest).length - 1, 1, `${t.name}: the description "${rest}" ${pageText.split(rest).length - 1} times:\n${row}`);
    assert.equal(row.replace(rest, '').split(t.title).length - 1, 1, `${t.name}: the title "${t.title}" not once:\n${row}`);
  }

  // A denied call, then an allowed one, through the try-it form: red,
  // then green.
  await page.selectOption('#try-tool', 'deleteTask');
  await page.fill('#try-args', '{"taskId": 1}');
  await page.fill('#try-why', 'cleaning up a duplicate task');
  await page.click('#try-run');
  await page.waitForSelector('#try-out.bad .verdict');
  assert.match(await page.textContent('#try-out'), /denied.*no-deletes.*not deleted from the console/s);
  assert.equal(await page.locator('#try-out .outcome').evaluate((e) => getComputedStyle(e).color), 'rgb(180, 35, 24)');
  await page.selectOption('#try-tool', 'listTasks');
  await page.fill('#try-args', '{}');
  await page.click('#try-run');
  await page.waitForSelector('#try-out.ok .verdict');
  assert.match(await page.textContent('#try-out'), /Write the release notes/);
  assert.equal(await page.locator('#try-out .outcome').evaluate((e) => getComputedStyle(e).color), 'rgb(20, 122, 61)');

  // A model request with the admin's token: its row names the principal
  // and the token's id (auth.tokens[].id, by default PRINCIPAL#N), never
  // the token, and its tokens in and out.
  const ok = await chat('fake');
  assert.equal(ok.status, 200, ok.body);
  const anonymous = await fetch(`${base}/v1/chat/completions`, { method: 'POST', body: '{}' });
  assert.equal(anonymous.status, 401);

  await tab(page, 'feed');
  await page.waitForFunction(() => document.querySelectorAll('#feed-table tbody tr').length >= 3);
  const feed = await page.locator('#feed-table tbody tr').evaluateAll((rows) => rows.map((r) => r.textContent));
  assert.ok(feed.some((r) => /deleteTask.*denied.*no-deletes: tasks are not deleted/s.test(r)), feed.join('\n'));
  // A try-it call names the key its session was opened with.
  assert.ok(feed.some((r) => /ops \(ops#1\).*listTasks.*ok/s.test(r)), feed.join('\n'));
  // Its cost at the config's price: 42 input tokens at $1 and 17 output
  // at $2 a million.
  assert.ok(feed.some((r) => /model.*ops \(ops#1\).*fake → fake.*200.*42 in \/ 17 out\$0\.000076/s.test(r)), feed.join('\n'));
  assert.ok(!feed.some((r) => r.includes(ADMIN)), 'a token in the feed');

  // The audit trail, searched by tool; then verify, intact.
  await tab(page, 'audit');
  await page.fill('#audit-form input[name="tool"]', 'deleteTask');
  await page.click('#audit-search');
  await page.waitForFunction(() => document.querySelectorAll('#audit-table tbody tr[data-seq]').length === 1);
  assert.match(await page.textContent('#audit-table tbody'), /deleteTask.*denied.*no-deletes/s);
  await page.click('#audit-verify');
  await page.waitForSelector('#verify-out p.ok');
  // The denied call is one record; the call that ran, its intent and its
  // outcome (the write-ahead log), one record when both reached the
  // database in one batch; the model request, one.
  assert.match(await page.textContent('#verify-out'), /intact: [34] records/);

  // Someone edits record 1 in the database: verify names it.
  const sql = new DatabaseSync(db, { timeout: 10000 });
  sql.exec("UPDATE audit SET result = 'forged' WHERE seq = 1");
  sql.close();
  await page.fill('#audit-form input[name="tool"]', '');
  await page.click('#audit-search');
  // The denied call, the intent and outcome of the one that ran (or the
  // one record they merged into), and the model request's record.
  await auditRows(page, 3, 4);
  await page.click('#audit-verify');
  await page.waitForSelector('#verify-out p.bad');
  const verdict = await page.textContent('#verify-out');
  assert.match(verdict, /record 1: edited/, verdict);
  assert.equal(await page.locator('#audit-table tr.broken[data-seq="1"]').count(), 1);

  // The API refuses a POST without the console's header, even logged in.
  const status = await page.evaluate(async () => (await fetch('/ui/api/verify', { method: 'POST' })).status);
  assert.equal(status, 403);
  assert.deepEqual(problems, []);
});

test('console: every page fits the window at 1280 and 800 wide after long results; providers draw latency and failures', async () => {
  // A try-it call whose result is one 2,000-character word, which once
  // made the page 2,560 px wide; then the list holding it.
  await tab(page, 'tools');
  const long = 'x'.repeat(1990) + '-the-end';
  await page.selectOption('#try-tool', 'createTask');
  await page.fill('#try-args', JSON.stringify({ title: 'A task with a long description', description: long }));
  await page.fill('#try-why', 'checking that a long result stays in its box');
  await page.click('#try-run');
  await page.waitForSelector('#try-out.ok pre.result');
  assert.match(await page.textContent('#try-out pre.result'), /the-end/);
  await fits(page, 'tools after a long result');

  // Model requests: a healthy provider, a flaky one and one that cannot
  // be reached.
  for (let i = 0; i < 5; i++) assert.equal((await chat('fake')).status, 200);
  const flakyStatus = [];
  for (let i = 0; i < 9; i++) flakyStatus.push((await chat('flaky')).status);
  assert.equal(flakyStatus.filter((s) => s >= 400).length, 3, flakyStatus.join());
  assert.ok((await chat('down')).status >= 500);
  await page.waitForFunction(() => document.querySelectorAll('#feed-table tbody tr').length >= 19);

  // The audit trail again, with the long arguments and result, and the
  // edited record still named.
  await tab(page, 'audit');
  await page.click('#audit-search');
  // 3 or 4 records before, the call above (one record or two), and one a
  // model request (15).
  await auditRows(page, 19, 21);
  await page.click('#audit-verify');
  await page.waitForSelector('#verify-out p.bad');

  for (const [width, height] of WIDTHS) {
    await page.setViewportSize({ width, height });
    for (const name of PAGES) {
      await tab(page, name);
      if (name === 'providers') {
        await page.waitForSelector('.chart[data-provider="down"] svg');
        await page.waitForFunction(() => document.querySelector('.chart[data-provider="flaky"] .stats')?.textContent.includes('9 requests'));
      }
      await fits(page, `${name} at ${width} px`);
      await page.screenshot({ path: path.join(shots, `console-${name}-${width}.png`), fullPage: true });
    }

    // Each provider: labelled axes with a few ticks, successes and
    // failures apart, counts in words.
    const charts = await page.locator('#provider-charts .chart').evaluateAll((cs) => cs.map((c) => ({
      provider: c.dataset.provider,
      stats: c.querySelector('.stats').textContent,
      labels: [...c.querySelectorAll('svg text.label')].map((t) => t.textContent),
      yTicks: c.querySelectorAll('svg .axis.y text:not(.label)').length,
      xTicks: c.querySelectorAll('svg .axis.x text:not(.label)').length,
      ok: c.querySelectorAll('svg circle.okpt').length,
      fail: c.querySelectorAll('svg path.fail').length,
      quantiles: [...c.querySelectorAll('svg text.q')].map((t) => t.textContent),
      svgWidth: c.querySelector('svg').getBoundingClientRect().width,
      boxWidth: c.getBoundingClientRect().width,
    })));
    const by = Object.fromEntries(charts.map((c) => [c.provider, c]));
    assert.deepEqual(Object.keys(by).sort(), ['down', 'fake', 'flaky']);
    for (const c of charts) {
      assert.deepEqual(c.labels, ['latency (ms)', 'time'], c.provider);
      assert.ok(c.yTicks >= 3, `${c.provider}: ${c.yTicks} y ticks`);
      assert.ok(c.xTicks >= 2, `${c.provider}: ${c.xTicks} x ticks`);
      assert.ok(c.svgWidth <= c.boxWidth, `${c.provider}: the chart is ${c.svgWidth} px in a ${c.boxWidth} px box`);
    }
    assert.match(by.fake.stats, /^6 requests · 0 failures · p50 [\d.]+ ms · p95 [\d.]+ ms$/);
    assert.equal(by.fake.ok, 6);
    assert.equal(by.fake.fail, 0);
    assert.deepEqual(by.fake.quantiles, ['p95', 'p50']);
    assert.match(by.flaky.stats, /^9 requests · 3 failures \(33%\) · p50/);
    assert.equal(by.flaky.ok, 6);
    assert.equal(by.flaky.fail, 3);
    assert.match(by.down.stats, /^1 request · 1 failure \(100%\) · no successful request/);
    assert.equal(by.down.fail, 1);
    assert.equal(by.down.ok, 0);
    assert.match(await page.textContent('.chart[data-provider="down"] .lasterr'), /^Last failure, at [\d:]+: HTTP 5\d\d, .+/);
    assert.match(await page.textContent('.chart[data-provider="flaky"] .lasterr'), /HTTP 500/);
  }
  assert.deepEqual(problems, []);
});

// seedSpend writes days of spend before today into the spend table, as
// the server's recorder would have (priced as the config prices fake:
// USD 1 and 2 per million input and output tokens): thirteen days for
// key, at most $0.93 a day, and smaller, patchy days for eight keys of
// other principals. It returns key's requests and cost.
function seedSpend(key) {
  const today = Math.floor(Date.now() / 86400000) * 86400;
  const mine = { requests: 0, cost: 0 };
  const rows = [];
  const add = (daysAgo, id, principal, cost) => {
    const input = Math.round(cost * 1e6 / 2), output = Math.round(cost * 1e6 / 4);
    const requests = Math.max(1, Math.round(cost * 300));
    rows.push([today - daysAgo * 86400, id, principal, 'fake', 'fake', requests, input, Math.round(input * 0.3), 0, output, 0, (input + 2 * output) / 1e6, 0]);
    if (id === key) { mine.requests += requests; mine.cost += (input + 2 * output) / 1e6; }
  };
  [0.42, 0.55, 0.38, 0.61, 0.72, 0.58, 0.66, 0.81, 0.74, 0.93, 0.69, 0.77, 0.85].forEach((c, i) => add(13 - i, key, 'ops', c));
  const others = [['key_5f0c2a91d4e7b318', 'ci'], ['key_0b7e44c1a9f2d356', 'support'], ['key_c3a19d07e5b28f64', 'research'], ['key_7d2f6b8e01c4a593', 'ci'],
    ['key_e41b9a3c7f05d268', 'billing'], ['key_2a8c5e1f9d3b7064', 'support'], ['key_9f4d0c6a2e8b1375', 'research'], ['key_46e3b7d9a1c0f852', 'batch']];
  others.forEach(([id, who], k) => {
    for (let d = 1; d <= 13; d++) if ((d + k) % 3 !== 0) add(d, id, who, Number((0.4 / (k + 1.5) * (1 + ((d * 7 + k * 3) % 5) / 6)).toFixed(4)));
  });
  // The server writes the same file: wait for its lock.
  const sql = new DatabaseSync(db, { timeout: 10000 });
  try {
    const insert = sql.prepare(`INSERT INTO spend (day, key_id, principal, model, provider, requests, input, cached, cache_write, output, reasoning, cost_usd, unpriced)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
    for (const r of rows) insert.run(...r);
  } finally {
    sql.close();
  }
  return mine;
}

test('console: spend per key with its budget, per model, and a chart of cost per day at 1280 and 800 wide', async () => {
  // A key for ops with a budget of a dollar a day, made by the CLI on
  // the server's own file; the running server sees it within a second.
  const made = JSON.parse(execFileSync(binary(), ['keys', 'create', '--config', cfgPath, '--principal', 'ops', '--budget-usd', '1', '--period', '1d'],
    { env: { PATH: process.env.PATH, HOME: process.env.HOME, OPS_TOKEN: ADMIN }, encoding: 'utf8' }));
  assert.match(made.id, /^key_[0-9a-f]{16}$/);
  let first;
  for (let i = 0; i < 40; i++) {
    first = await chat('fake', made.key);
    if (first.status === 200) break;
    assert.equal(first.status, 401, first.body);
    await new Promise((r) => setTimeout(r, 250));
  }
  assert.equal(first.status, 200, 'the server never took the new key');
  // Three priced requests (42 input and 17 output tokens each) and one
  // to a provider without a price, which fails besides.
  for (let i = 0; i < 2; i++) assert.equal((await chat('fake', made.key)).status, 200);
  assert.ok((await chat('down', made.key)).status >= 500);
  const seeded = seedSpend(made.id);
  await new Promise((r) => setTimeout(r, 1500)); // spend is written every second

  await page.setViewportSize({ width: 1280, height: 800 });
  await tab(page, 'spend');
  await page.waitForSelector(`#spend-off:not([hidden]), #spend-table tbody tr[data-group="${made.id}"]`);
  if (await page.locator('#spend-off').isVisible()) {
    assert.fail('the console says it keeps no spend: config/serve.go does not pass the spend and key stores to console.Config');
  }

  // The API: the key's sums, its principal and budget.
  const api = await page.evaluate(async () => (await fetch('/ui/api/spend?by=key&since=30d')).json());
  assert.equal(api.days.length, 31);
  const mine = api.groups.find((g) => g.group === made.id);
  assert.equal(api.groups[0].group, made.id, 'the costliest key first');
  assert.equal(mine.principal, 'ops');
  assert.deepEqual(mine.budget, { usd: 1, period_seconds: 86400 });
  assert.equal(mine.total.requests, seeded.requests + 4);
  assert.equal(mine.total.unpriced, 1);
  assert.ok(Math.abs(mine.total.cost_usd - (seeded.cost + 3 * 76e-6)) < 1e-9, `cost ${mine.total.cost_usd}, want ${seeded.cost + 3 * 76e-6}`);
  assert.equal(api.groups.length, 10, api.groups.map((g) => g.group).join()); // the key, eight of the fixture's, ops#1 (auth.tokens)

  // The table: the key with its principal, budget, requests and cost;
  // the unpriced request counted in words.
  const cells = await page.locator(`#spend-table tbody tr[data-group="${made.id}"] td`).allInnerTexts();
  assert.match(cells[0], new RegExp(`${made.id}[\\s\\S]*ops · budget \\$1\\.00 a day`));
  assert.equal(cells[1], await page.evaluate((n) => n.toLocaleString(), seeded.requests + 4));
  assert.match(cells[6], /^\$\d+\.\d\d$/);
  assert.equal(cells[7], '1 request');
  assert.equal(await page.textContent('#spend-group'), 'Key');
  assert.match(await page.textContent('#spend-table tfoot'), /Total/);

  const chart = () => page.locator('#spend-chart').evaluate((c) => ({
    labels: [...c.querySelectorAll('svg text.label')].map((t) => t.textContent),
    yTicks: c.querySelectorAll('svg .axis.y text:not(.label)').length,
    xTicks: c.querySelectorAll('svg .axis.x text:not(.label)').length,
    budgets: [...c.querySelectorAll('svg g.budget')].map((g) => g.dataset.group),
    dashed: getComputedStyle(c.querySelector('svg line.budget')).strokeDasharray,
    budgetY: Number(c.querySelector('svg line.budget')?.getAttribute('y1')),
    topOfMine: Math.min(...[...c.querySelectorAll('svg g.series.s0 circle')].map((x) => Number(x.getAttribute('cy')))),
    legend: [...c.querySelectorAll('.legend .key.line')].map((k) => k.textContent),
    lines: c.querySelectorAll('svg g.series').length,
    svgWidth: c.querySelector('svg').getBoundingClientRect().width,
    boxWidth: c.getBoundingClientRect().width,
  }));
  for (const [width, height] of WIDTHS) {
    await page.setViewportSize({ width, height });
    await tab(page, 'spend');
    await page.waitForSelector(`#spend-table tbody tr[data-group="${made.id}"]`);
    await page.waitForTimeout(400); // the redraw after the resize
    const c = await chart();
    assert.deepEqual(c.labels, ['cost per day (USD)', 'day (UTC)']);
    assert.ok(c.yTicks >= 3, `${c.yTicks} y ticks`);
    assert.ok(c.xTicks >= 2, `${c.xTicks} x ticks`);
    assert.deepEqual(c.budgets, [made.id], 'one budget line, the key\'s');
    assert.notEqual(c.dashed, 'none');
    assert.ok(c.budgetY < c.topOfMine, `the budget line (y ${c.budgetY}) is above the key's costliest day (y ${c.topOfMine})`);
    assert.equal(c.legend.length, 8, c.legend.join());
    assert.equal(c.legend[0], made.id);
    assert.equal(c.legend[7], 'other (3 keys)');
    assert.equal(c.lines, 8);
    assert.ok(c.svgWidth <= c.boxWidth, `the chart is ${c.svgWidth} px in a ${c.boxWidth} px box`);
    await fits(page, `spend at ${width} px`);
    const [tableWidth, tableBox] = await page.locator('#spend-table').evaluate((t) => [t.scrollWidth, t.parentElement.clientWidth]);
    assert.ok(tableWidth <= tableBox, `the table is ${tableWidth} px in a ${tableBox} px box at ${width} px`);
    await page.screenshot({ path: path.join(shots, `console-spend-${width}.png`), fullPage: true });
  }

  // Per model: the provider without a price shows no cost, and its
  // requests as unpriced.
  await page.selectOption('#spend-form select[name="by"]', 'model');
  await page.waitForSelector('#spend-table tbody tr[data-group="down"]');
  assert.equal(await page.textContent('#spend-group'), 'Model');
  const down = await page.locator('#spend-table tbody tr[data-group="down"] td').allInnerTexts();
  assert.equal(down[6], '—');
  assert.equal(down[7], '2 requests'); // one with the admin's token, one with the key
  assert.match((await page.locator('#spend-table tbody tr[data-group="fake"] td').allInnerTexts())[6], /^\$\d+\.\d\d$/);
  await fits(page, 'spend per model at 800 px');
  await page.selectOption('#spend-form select[name="by"]', 'key');
  await page.waitForSelector(`#spend-table tbody tr[data-group="${made.id}"]`);
  assert.deepEqual(problems, []);
});

// keys runs `toolgate keys ARGS` on the server's config.
function keys(...args) {
  return execFileSync(binary(), ['keys', ...args, '--config', cfgPath], { env: { PATH: process.env.PATH, HOME: process.env.HOME, OPS_TOKEN: ADMIN }, encoding: 'utf8' });
}

// loginWith submits the login form with secret and returns the error it
// shows, '' when the console opened.
async function loginWith(p, secret) {
  await p.goto(`${base}/ui/`);
  await p.fill('#token', secret);
  await Promise.all([p.waitForNavigation(), p.click('#login')]);
  if (await p.locator('#login-error').count()) return p.textContent('#login-error');
  await p.waitForSelector('#tool-table tbody tr[data-tool="listTasks"]');
  return '';
}

test('console: keys made at run time log in; a refused login says why; revoking a key ends its session', async () => {
  // A key of ops, who has the console role (admin), logs in and runs a
  // call as ops; the config's token still does.
  const mine = JSON.parse(keys('create', '--principal', 'ops'));
  const viewer = JSON.parse(keys('create', '--principal', 'viewer'));
  const p = await newPage();
  let msg = '';
  for (let i = 0; i < 40; i++) { // the server sees a new key within a second
    msg = await loginWith(p, mine.key);
    if (msg === '') break;
    assert.equal(msg, 'Unknown token or key.');
    await p.waitForTimeout(250);
  }
  assert.equal(msg, '', 'the key never logged in');
  assert.equal((await p.evaluate(async () => (await fetch('/ui/api/me')).json())).principal, 'ops');
  await p.selectOption('#try-tool', 'listTasks');
  await p.fill('#try-args', '{}');
  await p.click('#try-run');
  await p.waitForSelector('#try-out.ok .verdict');

  // Refusals, each saying why.
  const other = await newPage();
  assert.equal(await loginWith(other, 'tg-' + 'A'.repeat(43)), 'Unknown token or key.');
  assert.equal(await loginWith(other, viewer.key), 'The principal of that token or key, viewer, does not have the console role (admin).');
  await other.screenshot({ path: path.join(shots, 'console-login-refused-1280.png') });

  // Revoked: the open session ends within a second or so, and the key
  // no longer logs in.
  keys('revoke', mine.id);
  await p.waitForTimeout(1500);
  await p.goto(`${base}/ui/`);
  await p.waitForSelector('#token');
  assert.equal(await p.evaluate(async () => (await fetch('/ui/api/me')).status), 401);
  assert.equal(await loginWith(other, mine.key), 'That key was revoked.');
  assert.equal(await loginWith(other, ADMIN), '');
  await p.close();
  await other.close();
  assert.deepEqual(problems, []);
});

// mediated sends one Chat Completions request to the "agent:policy"
// model through the gateway's mediation, as a coding agent with Bash and
// Read would, and returns the answer.
async function mediated(dir) {
  const r = await fetch(`${base}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      model: 'policy_agent',
      messages: [{ role: 'user', content: `Clean up ${dir}/old and then read ${dir}/note.txt and tell me what it says` }],
      tools: ['Bash', 'Read'].map((name) => ({ type: 'function', function: { name, parameters: { type: 'object', properties: { command: { type: 'string' }, file_path: { type: 'string' } } } } })),
    }),
  });
  return { status: r.status, body: await r.text() };
}

test('console: the calls a model made are shown under its request, with their decisions', async () => {
  const dir = tempDir();
  const r = await mediated(dir);
  assert.equal(r.status, 200, r.body);
  // The model's Bash call was denied and never reached the client; its
  // Read was passed on.
  assert.match(r.body, /"name":"Read"/);
  assert.doesNotMatch(r.body, /rm -rf/);

  await page.setViewportSize({ width: 1280, height: 800 });
  await tab(page, 'feed');
  const group = () => page.evaluate(() => {
    const rows = [...document.querySelectorAll('#feed-table tbody tr')];
    const i = rows.findIndex((x) => x.textContent.includes('policy_agent → policy_agent'));
    if (i < 0) return null;
    const kids = [];
    for (const x of rows.slice(i + 1)) {
      if (!x.classList.contains('child')) break;
      kids.push({ parent: x.dataset.parent, text: x.textContent, cls: x.className });
    }
    return { title: rows[i].querySelector('td.name').title, text: rows[i].textContent, kids };
  });
  await page.waitForFunction(() => [...document.querySelectorAll('#feed-table tbody tr')].some((x) => x.textContent.includes('policy_agent → policy_agent')));
  const g = await group();
  assert.ok(g, 'no row for the mediated request');
  // The request's row, its principal, key, tokens and cost, then its
  // three calls, newest first: the Read passed to the client, listTasks
  // run by the gateway, the Bash call the policy denied.
  assert.match(g.text, /model.*ops \(ops#1\).*200.*in \/.*out\$/s);
  assert.equal(g.kids.length, 3, JSON.stringify(g.kids));
  assert.equal(new Set(g.kids.map((k) => k.parent)).size, 1);
  assert.match(g.kids[0].text, /proposal.*↳ Read.*ok/s);
  assert.match(g.kids[1].text, /call.*↳ listTasks.*ok/s);
  assert.match(g.kids[2].text, /proposal.*↳ Bash.*denied.*no-rm: no recursive deletes/s);
  assert.match(g.kids[2].cls, /bad/);
  // The audit log has them under the request's record too, by the id
  // the feed grouped them by (and their spans carry, as
  // toolgate.request_id and toolgate.parent_id).
  const recs = await page.evaluate(async () => (await fetch('/ui/api/audit?principal=ops')).json());
  const model = recs.find((x) => x.kind === 'model' && x.tool === 'policy_agent');
  assert.match(model?.call_id ?? '', /^req_/);
  assert.equal(g.kids[0].parent, model.call_id);
  assert.match(g.title, new RegExp(`^id ${model.call_id}$`, 'm'), 'the request row does not name its id');
  for (const tool of ['Bash', 'Read', 'listTasks']) {
    assert.ok(recs.some((x) => x.tool === tool && x.parent === model.call_id), `no audit record of ${tool} under ${model.call_id}`);
  }
  await tab(page, 'audit');
  await page.fill('#audit-form input[name="tool"]', 'Bash');
  await page.click('#audit-search');
  await page.waitForFunction(() => document.querySelectorAll('#audit-table tbody tr[data-seq]').length === 1);
  assert.match(await page.textContent('#audit-table tbody'), new RegExp(`Bash.*proposal · call_policy_Bash · in ${model.call_id}.*denied.*no-rm`, 's'));
  await page.fill('#audit-form input[name="tool"]', '');

  for (const [width, height] of WIDTHS) {
    await page.setViewportSize({ width, height });
    await tab(page, 'feed');
    await fits(page, `feed with a model's calls at ${width} px`);
    await page.screenshot({ path: path.join(shots, `console-feed-mediated-${width}.png`), fullPage: false });
  }
  assert.deepEqual(problems, []);
});

test('console: a server without an audit log says so on the audit and spend pages', async () => {
  const dir = tempDir();
  const bare = await serve(['--config', config(dir, '')], { OPS_TOKEN: ADMIN });
  try {
    const url = bare.url.replace(/\/mcp$/, '');
    const p = await newPage();
    await login(p, url);
    await tab(p, 'audit');
    await p.waitForSelector('#audit-off:not([hidden])');
    const msg = await p.locator('#audit-off').innerText();
    assert.match(msg, /This server keeps no audit log/);
    assert.match(msg, /audit\.db/);
    for (const id of ['#audit-form', '#audit-table']) assert.equal(await p.locator(id).isVisible(), false, id);
    await fits(p, 'audit without a log');
    await p.screenshot({ path: path.join(shots, 'console-audit-off-1280.png') });
    // Without the audit log's file there are no keys and no spend: the
    // spend page says so, and how to keep it.
    await tab(p, 'spend');
    await p.waitForSelector('#spend-off:not([hidden])');
    const off = await p.locator('#spend-off').innerText();
    assert.match(off, /This server keeps no spend/);
    assert.match(off, /audit\.db/);
    assert.match(off, /keys\.db/);
    assert.equal(await p.locator('#spend-report').isVisible(), false);
    await fits(p, 'spend without a store');
    await p.screenshot({ path: path.join(shots, 'console-spend-off-1280.png') });
    // The API itself answers a plain error, which the page shows as is.
    const j = await p.evaluate(async () => (await fetch('/ui/api/audit')).json());
    assert.deepEqual(j, { error: 'this server keeps no audit log' });
    await p.close();
  } finally {
    await bare.stop();
  }
  assert.deepEqual(problems, []);
});

// auditRows waits for the audit page to list from min to max records
// (max: min if absent), and says how many it lists when it does not. A
// call that ran is one record or two: its intent and outcome are merged
// into one when they reach the database in the same batch.
async function auditRows(page, min, max = min) {
  try {
    await page.waitForFunction(([min, max]) => {
      const n = document.querySelectorAll('#audit-table tbody tr[data-seq]').length;
      return n >= min && n <= max;
    }, [min, max], { timeout: 10000 });
  } catch {
    const want = min === max ? `${min}` : `${min} to ${max}`;
    assert.fail(`the audit page lists ${await page.locator('#audit-table tbody tr[data-seq]').count()} records, want ${want}`);
  }
}
