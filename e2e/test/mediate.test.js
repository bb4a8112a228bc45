// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

// The kernel over a coding agent's model calls: Claude Code (`claude -p`)
// through `toolgate serve` with gateway.mediate_tools, in front of
// cmd/fakebackend's "agent:policy" model. The model first asks Claude
// Code's Bash to `rm -rf` a folder — the policy denies it, so Claude Code
// never sees the call and the model is told why; then it calls listTasks,
// which the gateway serves and runs itself (Claude Code gets it as
// mcp_tool_use and mcp_tool_result blocks); then it asks Claude Code's
// Read for a file, which the policy allows; then it answers with the
// file's secret. The audit chain verifies and lists each call with its
// decision under its request.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync, mkdirSync, existsSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { DatabaseSync } from 'node:sqlite';
import path from 'node:path';
import { tempDir, serve, gatewayLogged, startFakeBackend, runClaude, binary } from './harness.js';

const TOKEN = 'gw-mediate-token-51c2e9';
let fake, server, base, db;

before(async () => {
  fake = await startFakeBackend();
  const dir = tempDir();
  db = path.join(dir, 'audit.db');
  const cfg = path.join(dir, 'mediate.yaml');
  writeFileSync(cfg, [
    'audit:',
    `  db: ${db}`,
    'principals:',
    '  - id: agent',
    '    roles: [reader, writer]',
    'auth:',
    '  tokens:',
    '    - principal: agent',
    '      token_env: GATEWAY_TOKEN',
    'sources:',
    '  - name: tasks',
    '    demo: {}',
    'providers:',
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
    'policy:',
    '  rules:',
    '    - name: no-rm',
    '      tools: [Bash]',
    '      when: \'args.command.matches("rm\\\\s+-rf")\'',
    '      effect: deny',
    '      reason: no recursive deletes',
    '',
  ].join('\n'));
  server = await serve(['--config', cfg], { GATEWAY_TOKEN: TOKEN });
  base = server.url.replace(/\/mcp$/, '');
});

after(async () => {
  const killer = setTimeout(() => server?.child.kill('SIGKILL'), 15000);
  await server?.stop();
  clearTimeout(killer);
  fake?.stop();
});

function records() {
  const conn = new DatabaseSync(db, { readOnly: true });
  try {
    return conn.prepare('SELECT seq, principal, tool, call_id, status, rule, kind, parent FROM audit ORDER BY id').all();
  } finally {
    conn.close();
  }
}

test('Claude Code under the gateway\'s policy: a denied Bash, a served listTasks, an allowed Read', async () => {
  const dir = tempDir();
  const victim = path.join(dir, 'keep-me');
  mkdirSync(victim);
  writeFileSync(path.join(victim, 'precious.txt'), 'do not delete');
  const secret = randomBytes(8).toString('hex');
  const file = path.join(dir, 'note.txt');
  writeFileSync(file, `secret ${secret}\n`);
  const offset = server.stderr.length;
  const r = await runClaude({
    url: base, token: TOKEN, model: 'policy_agent', dir,
    args: ['--output-format', 'stream-json', '--verbose'],
    prompt: `Clean up ${victim} and then read ${file} and tell me what it says.`,
  });
  assert.equal(r.code, 0, `claude exited ${r.code}\nstdout:\n${r.stdout}\nstderr:\n${r.stderr}\nserve:\n${server.stderr.slice(offset)}`);
  assert.deepEqual(r.egress, [], 'Claude Code tried to leave loopback');
  assert.ok(r.stdout.includes(secret), `the answer lacks the file's secret:\n${r.stdout}`);
  // The denied call never reached Claude Code: no rm in anything it
  // printed, and the folder is still there.
  assert.ok(!/rm -rf/.test(r.stdout), `Claude Code saw the denied call:\n${r.stdout}`);
  assert.ok(existsSync(path.join(victim, 'precious.txt')), 'the folder was deleted');
  // The served call reached it as the Messages API's server-tool blocks.
  assert.ok(r.stdout.includes('mcp_tool_use') && r.stdout.includes('listTasks'), `no mcp_tool_use block for listTasks:\n${r.stdout}`);
  await gatewayLogged(server, offset, 'policy_agent', 2);
  const statuses = [...server.stderr.slice(offset).matchAll(/msg="gateway request".*? model=(\S+) .*?status=(\d+)/g)]
    .filter((m) => m[1] === 'policy_agent').map((m) => Number(m[2]));
  assert.ok(statuses.length >= 2 && statuses.every((s) => s === 200), `gateway statuses ${statuses}`);

  // The journal's records reach the SQLite store in batches, about 10 ms
  // after they were written: wait until the last request's are there.
  const settled = (rs) => {
    const ids = new Set(rs.filter((x) => x.kind === 'model').map((x) => x.call_id));
    const mine = rs.filter((x) => ['Bash', 'Read', 'listTasks'].includes(x.tool));
    return ['Bash', 'Read', 'listTasks'].every((t) => mine.some((x) => x.tool === t)) && mine.every((x) => ids.has(x.parent));
  };
  let recs = records();
  for (let i = 0; i < 100 && !settled(recs); i++) {
    await new Promise((res) => setTimeout(res, 50));
    recs = records();
  }
  const requests = new Set(recs.filter((x) => x.kind === 'model').map((x) => x.call_id));
  const bash = recs.find((x) => x.tool === 'Bash');
  assert.ok(bash && bash.kind === 'proposal' && bash.status === 'denied' && bash.rule === 'no-rm', `Bash record ${JSON.stringify(bash)}`);
  const read = recs.find((x) => x.tool === 'Read');
  assert.ok(read && read.kind === 'proposal' && read.status === 'ok', `Read record ${JSON.stringify(read)}`);
  const list = recs.filter((x) => x.tool === 'listTasks');
  assert.ok(list.length >= 1, 'no listTasks record');
  for (const x of [bash, read, ...list]) {
    assert.ok(requests.has(x.parent), `record ${JSON.stringify(x)} is under no request of ${[...requests]}`);
  }
  assert.ok(recs.every((x) => x.principal === 'agent'), 'a record of another principal');

  const verify = execFileSync(binary(), ['audit', 'verify', '--db', db], { encoding: 'utf8' });
  assert.match(verify, /audit log intact/);
  const listed = execFileSync(binary(), ['audit', 'list', '--db', db], { encoding: 'utf8' });
  for (const want of ['Bash', 'denied', 'Read', 'listTasks', 'proposal', 'model']) {
    assert.ok(listed.includes(want), `audit list lacks ${want}:\n${listed}`);
  }
});
