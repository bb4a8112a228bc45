// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

// `toolgate serve` with no config (the built-in demo), driven by the
// official TypeScript MCP SDK client over streamable HTTP and over stdio.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { serve, httpClient, stdioClient, auditRecords, tempDir, text, justification } from './harness.js';

const demoTools = ['createTask', 'deleteTask', 'getTask', 'listTasks', 'updateTask'];

// The calls a new user would make, in order, and what the audit log must
// then hold for each: [principal, tool, status].
async function exercise(client, { admin } = {}) {
  const listed = await client.listTools();
  assert.deepEqual(listed.tools.map((t) => t.name), demoTools);
  const byName = Object.fromEntries(listed.tools.map((t) => [t.name, t]));
  assert.equal(byName.listTasks.annotations.readOnlyHint, true);
  assert.equal(byName.deleteTask.annotations.destructiveHint, true);
  assert.equal(byName.createTask.annotations.destructiveHint, false);
  assert.ok(byName.createTask.inputSchema.properties._justification, 'write tools declare _justification');
  assert.ok(byName.getTask.outputSchema, 'getTask lists its output schema');

  // A read is open to anyone.
  const list = await client.callTool({ name: 'listTasks', arguments: {} });
  assert.equal(list.isError ?? false, false, text(list));
  assert.match(text(list), /Write the release notes/);
  assert.equal(list.structuredContent.tasks.length, 3);

  // A write without a justification is denied as a tool error…
  const bare = await client.callTool({ name: 'createTask', arguments: { title: 'Ship the e2e tests' } });
  assert.equal(bare.isError, true);
  assert.match(text(bare), /justification/);

  // …and allowed with one.
  const made = await client.callTool({ name: 'createTask', arguments: { title: 'Ship the e2e tests', _justification: justification } });
  assert.equal(made.isError ?? false, false, text(made));
  assert.equal(made.structuredContent.title, 'Ship the e2e tests');
  const id = made.structuredContent.id;

  // Arguments that do not fit the schema are a tool error, not a protocol error.
  const invalid = await client.callTool({ name: 'getTask', arguments: { taskId: 'four' } });
  assert.equal(invalid.isError, true);

  // A delete needs the admin role.
  const denied = await client.callTool({ name: 'deleteTask', arguments: { taskId: id, _justification: justification } });
  assert.equal(denied.isError, true);
  assert.match(text(denied), /admin/);

  const calls = [
    ['listTasks', 'ok'],
    ['createTask', 'denied'],
    ['createTask', 'ok'],
    ['getTask', 'invalid_arguments'],
    ['deleteTask', 'denied'],
  ];
  if (admin) {
    const deleted = await admin.callTool({ name: 'deleteTask', arguments: { taskId: id, _justification: justification } });
    assert.equal(deleted.isError ?? false, false, text(deleted));
    const gone = await client.callTool({ name: 'getTask', arguments: { taskId: id } });
    assert.equal(gone.isError, true);
    assert.match(text(gone), new RegExp(`no task ${id}`));
    calls.push(['deleteTask', 'ok', 'admin'], ['getTask', 'tool_error']);
  }

  // An unknown tool is the protocol's invalid-params error, naming the real ones.
  await assert.rejects(client.callTool({ name: 'closeTask', arguments: { taskId: 1 } }), (err) => {
    assert.ok(err instanceof McpError, String(err));
    assert.equal(err.code, ErrorCode.InvalidParams);
    assert.match(err.message, /unknown tool "closeTask"/);
    return true;
  });
  calls.push(['closeTask', 'unknown_tool']);
  return calls;
}

function checkAudit(db, principal, calls) {
  const got = auditRecords(db).map((r) => [r.principal, r.tool, r.status]);
  const want = calls.map(([tool, status, who]) => [who ?? principal, tool, status]);
  assert.deepEqual(got, want);
  const justified = auditRecords(db).filter((r) => r.status === 'ok' && r.tool === 'createTask');
  assert.equal(justified[0].justification, justification);
}

test('streamable HTTP: the demo, anonymous and admin', async () => {
  const db = path.join(tempDir(), 'audit.db');
  const server = await serve(['--db', db]);
  let calls;
  try {
    assert.ok(server.token, 'the admin token is printed at start-up');
    const anon = await httpClient(server.url);
    const admin = await httpClient(server.url, server.token);
    calls = await exercise(anon, { admin });
    await anon.close();
    await admin.close();

    // A wrong token is refused before MCP.
    const res = await fetch(server.url, {
      method: 'POST',
      headers: { Authorization: 'Bearer wrong', 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    });
    assert.equal(res.status, 401);

    const health = await fetch(new URL('/healthz', server.url));
    assert.equal(health.status, 200);
    const metrics = await (await fetch(new URL('/metrics', server.url))).text();
    assert.match(metrics, /toolgate_mcp_calls_total\{status="ok",tool="listTasks"\} 1/);
    assert.match(metrics, /toolgate_mcp_denials_total\{code="justification_required",tool="createTask"\} 1/);
  } finally {
    // SIGTERM: running calls finish and the audit log is flushed.
    assert.equal(await server.stop(), 0, server.stderr);
  }
  checkAudit(db, 'anonymous', calls);
});

test('stdio: the demo as the local principal', async () => {
  const db = path.join(tempDir(), 'audit.db');
  const client = await stdioClient(['--db', db]);
  const calls = await exercise(client);
  await client.close();
  // The server exits when stdin closes; give it a moment to flush.
  for (let i = 0; i < 50 && auditRecords(db).length < calls.length; i++) {
    await new Promise((r) => setTimeout(r, 100));
  }
  checkAudit(db, 'local', calls);
});
