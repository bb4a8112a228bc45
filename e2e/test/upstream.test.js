// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

// Upstream aggregation: a second `toolgate serve` (the demo) is proxied by
// a front `toolgate serve` under the namespace "up", through the front's
// kernel, with the SDK client talking to the front.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { serve, httpClient, auditRecords, tempDir, text, justification } from './harness.js';

test('upstream: a proxied toolgate under a namespace, policed by the front kernel', async () => {
  const dir = tempDir();
  const backDB = path.join(dir, 'back.db');
  const frontDB = path.join(dir, 'front.db');
  const back = await serve(['--db', backDB], { TOOLGATE_ADMIN_TOKEN: 'back-admin-token-for-the-e2e-test' });
  const config = path.join(dir, 'front.yaml');
  writeFileSync(config, `
principals:
  - id: anonymous
    roles: [reader, writer]
auth:
  anonymous: anonymous
audit:
  db: ${frontDB}
sources:
  - name: up
    mcp:
      url: ${back.url}
      bearer_token_env: BACK_TOKEN
  - name: broken
    mcp:
      command: [${path.join(dir, 'no-such-server')}]
`);
  const front = await serve(['--config', config], { BACK_TOKEN: 'back-admin-token-for-the-e2e-test' });
  try {
    // The broken source is reported and the others still served.
    assert.match(front.stderr, /source not served.*source=broken/);
    const client = await httpClient(front.url);
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name), ['up_createTask', 'up_deleteTask', 'up_getTask', 'up_listTasks', 'up_updateTask']);
    assert.equal(tools.find((t) => t.name === 'up_listTasks').annotations.readOnlyHint, true);

    const list = await client.callTool({ name: 'up_listTasks', arguments: { status: 'done' } });
    assert.equal(list.isError ?? false, false, text(list));
    assert.match(text(list), /Archive last quarter/);

    // The front kernel denies before the back is asked…
    const bare = await client.callTool({ name: 'up_createTask', arguments: { title: 'Proxied' } });
    assert.equal(bare.isError, true);
    assert.match(text(bare), /justification/);
    // …and a front principal without admin cannot delete, whatever token the front holds for the back.
    const del = await client.callTool({ name: 'up_deleteTask', arguments: { taskId: 1, _justification: justification } });
    assert.equal(del.isError, true);
    assert.match(text(del), /admin/);

    // With a justification the write passes both kernels.
    const made = await client.callTool({ name: 'up_createTask', arguments: { title: 'Proxied', _justification: justification } });
    assert.equal(made.isError ?? false, false, text(made));
    assert.match(text(made), /"title":"Proxied"/);
    await client.close();
  } finally {
    assert.equal(await front.stop(), 0, front.stderr);
    assert.equal(await back.stop(), 0, back.stderr);
  }
  const f = auditRecords(frontDB).map((r) => [r.principal, r.tool, r.status]);
  assert.deepEqual(f, [
    ['anonymous', 'up_listTasks', 'ok'],
    ['anonymous', 'up_createTask', 'denied'],
    ['anonymous', 'up_deleteTask', 'denied'],
    ['anonymous', 'up_createTask', 'ok'],
  ]);
  // The back saw only what the front allowed, as the principal of the front's token.
  const b = auditRecords(backDB).map((r) => [r.principal, r.tool, r.status, r.justification]);
  assert.deepEqual(b, [
    ['admin', 'listTasks', 'ok', ''],
    ['admin', 'createTask', 'ok', justification],
  ]);
});
