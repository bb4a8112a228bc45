// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

// Shared helpers: build toolgate, start `toolgate serve`, connect the
// official TypeScript SDK client, read the audit log.

import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DatabaseSync } from 'node:sqlite';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

export function tempDir() {
  return mkdtempSync(path.join(tmpdir(), 'toolgate-e2e-'));
}

let built;

// binary returns the toolgate binary: $TOOLGATE_BIN, or one built here.
export function binary() {
  if (process.env.TOOLGATE_BIN) return process.env.TOOLGATE_BIN;
  if (!built) {
    built = path.join(tempDir(), 'toolgate');
    execFileSync('go', ['build', '-o', built, './cmd/toolgate'], { cwd: root, stdio: 'inherit' });
  }
  return built;
}

// startFakeBackend builds and starts cmd/fakebackend on a loopback port
// and resolves with its url and a stop().
export function startFakeBackend() {
  const dir = tempDir();
  const bin = path.join(dir, 'fakebackend');
  execFileSync('go', ['build', '-o', bin, './cmd/fakebackend'], { cwd: root, stdio: 'inherit' });
  const child = spawn(bin, ['-addr', '127.0.0.1:0'], { stdio: ['ignore', 'pipe', 'inherit'], env: { PATH: process.env.PATH, TOOLGATE_CORPORA: process.env.TOOLGATE_CORPORA ?? '' } });
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error('fakebackend did not start')), 30000);
    child.stdout.on('data', (d) => {
      out += d.toString();
      const m = out.match(/listening on (http:\/\/\S+)/);
      if (m) {
        clearTimeout(timer);
        resolve({ url: m[1], stop: () => child.kill('SIGTERM') });
      }
    });
  });
}

// serve starts `toolgate serve ARGS` on a free loopback port and resolves
// once it prints its URL. The returned object has url, stderr (so far),
// and stop(), which sends SIGTERM and resolves with the exit code.
export function serve(args, env = {}) {
  const child = spawn(binary(), ['serve', '--addr', '127.0.0.1:0', ...args], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const server = { child, stderr: '', url: null, token: null };
  const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve(code ?? signal)));
  server.stop = async () => {
    if (child.exitCode === null) child.kill('SIGTERM');
    return exited;
  };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('toolgate serve did not start:\n' + server.stderr)), 30000);
    child.stderr.on('data', (d) => {
      server.stderr += d.toString();
      const m = server.stderr.match(/over MCP at (http:\/\/\S+)/);
      const t = server.stderr.match(/bearer token for principal "admin": (\S+)/);
      if (t) server.token = t[1];
      if (m && !server.url) {
        server.url = m[1];
        clearTimeout(timer);
        resolve(server);
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      if (!server.url) reject(new Error(`toolgate serve exited with ${code}:\n${server.stderr}`));
    });
  });
}

// httpClient connects the SDK client over streamable HTTP, with a bearer
// token when given.
export async function httpClient(url, token) {
  const client = new Client({ name: 'toolgate-e2e', version: '1.0.0' });
  const opts = token ? { requestInit: { headers: { Authorization: `Bearer ${token}` } } } : {};
  await client.connect(new StreamableHTTPClientTransport(new URL(url), opts));
  return client;
}

// stdioClient runs `toolgate serve --stdio ARGS` under the SDK client.
export async function stdioClient(args, env = {}) {
  const transport = new StdioClientTransport({
    command: binary(),
    args: ['serve', '--stdio', ...args],
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
    stderr: 'pipe',
  });
  const client = new Client({ name: 'toolgate-e2e', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

// auditRecords returns the audit log's records, oldest first.
export function auditRecords(db) {
  if (!existsSync(db)) return [];
  const conn = new DatabaseSync(db, { readOnly: true });
  try {
    return conn.prepare('SELECT seq, principal, tool, status, code, justification, is_error FROM audit ORDER BY id').all();
  } finally {
    conn.close();
  }
}

// text joins a result's text content.
export function text(result) {
  return result.content.filter((c) => c.type === 'text').map((c) => c.text).join('');
}

export const justification = 'the user asked for this in the e2e test';
