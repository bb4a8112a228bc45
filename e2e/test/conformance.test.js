// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

// The official MCP conformance suite's server scenarios that apply to a
// tools-only server, against `toolgate serve --config conformance.yaml`.
// README.md ("Serving tools over MCP") lists the scenarios left out and why.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { serve, tempDir, root } from './harness.js';

export const scenarios = [
  'server-initialize',
  'ping',
  'tools-list',
  'tools-call-simple-text',
  'tools-call-error',
  'tools-call-image',
  'tools-call-audio',
  'tools-call-embedded-resource',
  'tools-call-mixed-content',
  'json-schema-2020-12',
  'server-sse-multiple-streams',
  'dns-rebinding-protection',
];

const require = createRequire(import.meta.url);
const cli = path.join(path.dirname(require.resolve('@modelcontextprotocol/conformance/package.json')), 'dist', 'index.js');

let server;
let work;
before(async () => {
  work = tempDir();
  server = await serve(['--config', path.join(root, 'e2e', 'conformance.yaml'), '--db', path.join(work, 'audit.db')]);
});
after(async () => {
  if (server) assert.equal(await server.stop(), 0, server.stderr);
});

for (const scenario of scenarios) {
  test(`conformance: ${scenario}`, () => {
    // The suite needs Node 22; process.execPath is the node running this
    // test, which `npm test` in e2e/ makes the pinned Node 22.
    const r = spawnSync(process.execPath, [cli, 'server', '--url', server.url, '--scenario', scenario], {
      cwd: work,
      encoding: 'utf8',
      timeout: 120000,
    });
    const out = (r.stdout + r.stderr).replace(/\x1b\[[0-9;]*m/g, '');
    assert.equal(r.status, 0, out);
    assert.match(out, /Passed: (\d+)\/\1, 0 failed/, out);
  });
}
