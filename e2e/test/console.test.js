// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

// The web console in a real browser: Debian's Chromium driven by
// playwright-core, against `toolgate serve` with server.ui on, a demo
// source, a policy that denies one tool and a SQLite audit log. It logs
// in, lists the tools, runs a denied call and an allowed one and finds
// both in the live feed with the right outcome and reason, searches the
// audit trail, breaks the chain by editing the database behind the
// server's back and sees verify name the record. A model request through
// the gateway (in front of cmd/fakebackend) appears in the feed with the
// principal and key id of its token. Screenshots go to
// $TOOLGATE_ARTIFACTS (default .ci/artifacts).

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { chromium } from 'playwright-core';
import { root, tempDir, serve, startFakeBackend } from './harness.js';

const ADMIN = 'console-admin-token-7e1f';
const shots = process.env.TOOLGATE_ARTIFACTS ?? path.join(root, '.ci', 'artifacts');
let server, browser, page, base, db, fake;

before(async () => {
  fake = await startFakeBackend();
  const dir = tempDir();
  db = path.join(dir, 'audit.db');
  const cfg = path.join(dir, 'console.yaml');
  writeFileSync(cfg, [
    'server:',
    '  ui: true',
    'audit:',
    `  db: ${db}`,
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
    '',
  ].join('\n'));
  server = await serve(['--config', cfg], { OPS_TOKEN: ADMIN });
  base = server.url.replace(/\/mcp$/, '');
  mkdirSync(shots, { recursive: true });
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-background-networking'],
  });
  page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
});

after(async () => {
  await browser?.close();
  await server?.stop();
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
  await page.screenshot({ path: path.join(shots, 'console-tools.png') });

  // A denied call, then an allowed one, through the try-it form.
  await page.selectOption('#try-tool', 'deleteTask');
  await page.fill('#try-args', '{"taskId": 1}');
  await page.fill('#try-why', 'cleaning up a duplicate task');
  await page.click('#try-run');
  await page.waitForSelector('#try-out p.bad');
  assert.match(await page.textContent('#try-out'), /denied.*no-deletes.*not deleted from the console/s);
  await page.selectOption('#try-tool', 'listTasks');
  await page.fill('#try-args', '{}');
  await page.click('#try-run');
  await page.waitForSelector('#try-out p.ok');
  assert.match(await page.textContent('#try-out'), /Write the release notes/);

  // A model request with the admin's token: its row names the principal
  // and the token's id (auth.tokens[].id, by default PRINCIPAL#N), never
  // the token.
  const chat = await fetch(`${base}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'fake', messages: [{ role: 'user', content: 'Hello' }] }),
  });
  assert.equal(chat.status, 200, await chat.text());
  const anonymous = await fetch(`${base}/v1/chat/completions`, { method: 'POST', body: '{}' });
  assert.equal(anonymous.status, 401);

  await page.click('nav button[data-tab="feed"]');
  await page.waitForFunction(() => document.querySelectorAll('#feed-table tbody tr').length >= 3);
  const feed = await page.locator('#feed-table tbody tr').evaluateAll((rows) => rows.map((r) => r.textContent));
  assert.ok(feed.some((r) => /deleteTask.*denied.*no-deletes: tasks are not deleted/s.test(r)), feed.join('\n'));
  assert.ok(feed.some((r) => /ops \(session\).*listTasks.*ok/s.test(r)), feed.join('\n'));
  assert.ok(feed.some((r) => /model.*ops \(ops#1\).*fake → fake.*200/s.test(r)), feed.join('\n'));
  assert.ok(!feed.some((r) => r.includes(ADMIN)), 'a token in the feed');
  await page.screenshot({ path: path.join(shots, 'console-feed.png') });

  // The audit trail, searched by tool; then verify, intact.
  await page.click('nav button[data-tab="audit"]');
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
  await page.screenshot({ path: path.join(shots, 'console-audit.png') });

  // The API refuses a POST without the console's header, even logged in.
  const status = await page.evaluate(async () => (await fetch('/ui/api/verify', { method: 'POST' })).status);
  assert.equal(status, 403);
});
