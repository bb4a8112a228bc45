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
// without an audit log says so on the audit page. No page throws and
// nothing breaks the CSP. Screenshots go to $TOOLGATE_ARTIFACTS (default
// .ci/artifacts) as console-PAGE-WIDTH.png.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync, mkdirSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { chromium } from 'playwright-core';
import { root, tempDir, serve, startFakeBackend } from './harness.js';

const ADMIN = 'console-admin-token-7e1f';
const shots = process.env.TOOLGATE_ARTIFACTS ?? path.join(root, '.ci', 'artifacts');
const WIDTHS = [[1280, 800], [800, 900]];
const PAGES = ['tools', 'feed', 'audit', 'providers'];
let server, browser, page, base, db, fake, flaky;
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

async function chat(model) {
  const r = await fetch(`${base}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
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
  server = await serve(['--config', config(dir, db)], { OPS_TOKEN: ADMIN });
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
  assert.equal(await page.textContent('#login-error'), 'Unknown token.');

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
  assert.ok(feed.some((r) => /ops \(session\).*listTasks.*ok/s.test(r)), feed.join('\n'));
  assert.ok(feed.some((r) => /model.*ops \(ops#1\).*fake → fake.*200.*42 in \/ 17 out/s.test(r)), feed.join('\n'));
  assert.ok(!feed.some((r) => r.includes(ADMIN)), 'a token in the feed');

  // The audit trail, searched by tool; then verify, intact.
  await tab(page, 'audit');
  await page.fill('#audit-form input[name="tool"]', 'deleteTask');
  await page.click('#audit-search');
  await page.waitForFunction(() => document.querySelectorAll('#audit-table tbody tr[data-seq]').length === 1);
  assert.match(await page.textContent('#audit-table tbody'), /deleteTask.*denied.*no-deletes/s);
  await page.click('#audit-verify');
  await page.waitForSelector('#verify-out p.ok');
  assert.match(await page.textContent('#verify-out'), /intact: 2 records/);

  // Someone edits record 1 in the database: verify names it.
  const sql = new DatabaseSync(db);
  sql.exec("UPDATE audit SET result = 'forged' WHERE seq = 1");
  sql.close();
  await page.fill('#audit-form input[name="tool"]', '');
  await page.click('#audit-search');
  await page.waitForFunction(() => document.querySelectorAll('#audit-table tbody tr[data-seq]').length === 2);
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
  await page.waitForFunction(() => document.querySelectorAll('#audit-table tbody tr[data-seq]').length === 3);
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
    const charts = await page.locator('.chart').evaluateAll((cs) => cs.map((c) => ({
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

test('console: a server without an audit log says so on the audit page', async () => {
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
    // The API itself answers a plain error, which the page shows as is.
    const j = await p.evaluate(async () => (await fetch('/ui/api/audit')).json());
    assert.deepEqual(j, { error: 'this server keeps no audit log' });
    await p.close();
  } finally {
    await bare.stop();
  }
  assert.deepEqual(problems, []);
});
