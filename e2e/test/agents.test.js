// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

// Real coding agents through the model gateway: Claude Code (`claude -p`),
// the Codex CLI (`codex exec`), opencode (`opencode run`) and the OpenAI
// Agents SDK (Responses and Chat models), pinned in package.json, against
// `toolgate serve` in front of
// cmd/fakebackend's "agent:read" model, on every backend kind — an
// OpenAI-compatible Chat server, Anthropic Messages, OpenAI Responses and
// a text model read with the Hermes parser, and for Claude Code and Codex
// also Gemini's generateContent. The model asks the agent to
// read a file in a temporary folder with the agent's own read tool, then
// answers with what the tool returned; the test checks the agent exited
// 0 with the file's secret in its answer, that the gateway refused
// nothing, and that the agent tried no connection beyond loopback.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync, existsSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { tempDir, serve, gatewayLogged, startFakeBackend, runClaude, claudeBinary, runCodex, codexBinary, runOpencode, opencodeBinary, runAgentsSDK } from './harness.js';

const TOKEN = 'gw-agents-token-8d1e4b';
const backends = ['chat', 'anthropic', 'responses', 'hermes'];
// Claude Code and Codex also run on a Gemini (generateContent) backend.
const geminiBackends = [...backends, 'gemini'];
let fake, server, base;

before(async () => {
  fake = await startFakeBackend();
  const dir = tempDir();
  const cfg = path.join(dir, 'gateway.yaml');
  writeFileSync(cfg, [
    'audit:',
    `  db: ${path.join(dir, 'audit.db')}`,
    'principals:',
    '  - id: agent',
    '    roles: [reader]',
    'auth:',
    '  tokens:',
    '    - principal: agent',
    '      token_env: GATEWAY_TOKEN',
    'providers:',
    '  - name: chat_agent',
    '    model_name: "agent:read"',
    '    provider_backend: openai_compat',
    `    api_config: {base_url: "${fake.url}/v1"}`,
    '  - name: anthropic_agent',
    '    model_name: "agent:read"',
    '    provider_backend: anthropic',
    `    api_config: {base_url: "${fake.url}", api_key_env: FAKE_BACKEND_KEY}`,
    '  - name: responses_agent',
    '    model_name: "agent:read"',
    '    provider_backend: openai',
    `    api_config: {base_url: "${fake.url}/v1", api: responses, api_key_env: FAKE_BACKEND_KEY}`,
    '  - name: hermes_agent',
    '    model_name: "textmodel:agent:read"',
    '    provider_backend: vllm_native',
    `    api_config: {base_url: "${fake.url}/v1"}`,
    '    tool_parser: hermes',
    '    parsing_format: think_tags',
    '    generation_config: {two_pass: true, max_thinking_tokens: 64, max_response_tokens: 256}',
    '  - name: gemini_agent',
    '    model_name: "agent:read"',
    '    provider_backend: gemini',
    `    api_config: {base_url: "${fake.url}", api_key_env: FAKE_BACKEND_KEY}`,
    'models:',
    ...geminiBackends.map((b) => `  agent-${b}: ${b}_agent`),
    '',
  ].join('\n'));
  server = await serve(['--config', cfg], { GATEWAY_TOKEN: TOKEN, FAKE_BACKEND_KEY: 'fake-backend-key' });
  base = server.url.replace(/\/mcp$/, '');
});

after(async () => {
  // The audit log's shutdown can stall on the SQLite file (spend and
  // audit writers): do not let that hang the suite.
  const killer = setTimeout(() => server?.child.kill('SIGKILL'), 15000);
  await server?.stop();
  clearTimeout(killer);
  fake?.stop();
});

// gatewayStatuses returns the statuses the gateway logged for model
// since the log was offset characters long.
function gatewayStatuses(model, offset) {
  return [...server.stderr.slice(offset).matchAll(/msg="gateway request".*? model=(\S+) .*?status=(\d+)/g)]
    .filter((m) => m[1] === model).map((m) => Number(m[2]));
}

for (const backend of geminiBackends) {
  test(`claude code reads a file through the gateway, ${backend} backend`, { skip: !existsSync(claudeBinary()) && 'Claude Code is not installed: npm ci in e2e' }, async () => {
    const dir = tempDir();
    const secret = `marmalade-${randomBytes(6).toString('hex')}`;
    const file = path.join(dir, 'note.txt');
    writeFileSync(file, `the secret word is ${secret}\n`);
    const offset = server.stderr.length;
    const model = `agent-${backend}`;
    const res = await runClaude({ url: base, token: TOKEN, model, prompt: `What does the file ${file} say?`, dir });
    assert.equal(res.code, 0, `claude exited ${res.code}\nstdout: ${res.stdout}\nstderr: ${res.stderr}`);
    assert.match(res.stdout, new RegExp(`The file says: .*the secret word is ${secret}`), res.stdout);
    await gatewayLogged(server, offset, model, 2);
    const statuses = gatewayStatuses(model, offset);
    // The tool-call turn, then the answer after the tool result.
    assert.ok(statuses.length >= 2, `gateway requests: ${statuses}`);
    assert.deepEqual(statuses.filter((s) => s !== 200), [], `a request was refused:\n${server.stderr.slice(offset)}`);
    assert.deepEqual(res.egress, [], 'Claude Code tried to leave loopback');
  });
}

// checkRun asserts what every agent run must show: exit 0, the file's
// secret in the answer, at least the tool-call turn and the answer turn
// through the gateway, all 200, and no connection beyond loopback.
async function checkRun(agent, res, { model, offset, secret }) {
  await gatewayLogged(server, offset, model, 2);
  assert.equal(res.code, 0, `${agent} exited ${res.code}\nstdout: ${res.stdout}\nstderr: ${res.stderr}`);
  assert.match(res.stdout, new RegExp(`The file says: [^]*the secret word is ${secret}`), res.stdout);
  const statuses = gatewayStatuses(model, offset);
  assert.ok(statuses.length >= 2, `gateway requests: ${statuses}\n${server.stderr.slice(offset)}`);
  assert.deepEqual(statuses.filter((s) => s !== 200), [], `a request was refused:\n${server.stderr.slice(offset)}`);
  assert.deepEqual(res.egress, [], `${agent} tried to leave loopback`);
}

// secretFile writes a file holding a new secret in a new folder.
function secretFile(word) {
  const dir = tempDir();
  const secret = `${word}-${randomBytes(6).toString('hex')}`;
  const file = path.join(dir, 'note.txt');
  writeFileSync(file, `the secret word is ${secret}\n`);
  return { dir, file, secret };
}

// Codex speaks Responses only; its default tools include a namespace
// (multi_agent_v1) and the hosted web_search, and it reads the file with
// its exec_command tool in the read-only sandbox.
for (const backend of geminiBackends) {
  test(`codex reads a file through the gateway, ${backend} backend`, { skip: !existsSync(codexBinary()) && 'Codex is not installed: npm ci in e2e' }, async () => {
    const { dir, file, secret } = secretFile('quince');
    const offset = server.stderr.length;
    const model = `agent-${backend}`;
    const res = await runCodex({ url: base, token: TOKEN, model, prompt: `What does the file ${file} say?`, dir });
    await checkRun('codex', res, { model, offset, secret });
  });
}

// opencode speaks Chat Completions through its OpenAI-compatible
// provider and reads the file with its read tool.
for (const backend of backends) {
  test(`opencode reads a file through the gateway, ${backend} backend`, { skip: !existsSync(opencodeBinary()) && 'opencode is not installed: npm ci in e2e' }, async () => {
    const { dir, file, secret } = secretFile('medlar');
    const offset = server.stderr.length;
    const model = `agent-${backend}`;
    const res = await runOpencode({ url: base, token: TOKEN, model, prompt: `What does the file ${file} say?`, dir });
    await checkRun('opencode', res, { model, offset, secret });
  });
}

// The OpenAI Agents SDK's tool loop, with its Responses model and its
// Chat Completions model, streaming.
for (const api of ['responses', 'chat']) {
  for (const backend of backends) {
    test(`openai agents sdk (${api} model) reads a file through the gateway, ${backend} backend`, async () => {
      const { file, secret } = secretFile('loquat');
      const offset = server.stderr.length;
      const model = `agent-${backend}`;
      const res = await runAgentsSDK({ url: base, token: TOKEN, model, api, prompt: `What does the file ${file} say?` });
      await checkRun('the agents sdk', res, { model, offset, secret });
    });
  }
}
