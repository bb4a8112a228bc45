// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

// The Gemini front door with Google's own clients, both pinned in
// package.json: the @google/genai SDK (generateContent and
// generateContentStream with function calling, a chat's whole tool loop
// by hand and the SDK's automatic function calling, the README's
// snippet as printed) against `toolgate serve` in front of
// cmd/fakebackend on every backend kind — an OpenAI-compatible Chat
// server, Anthropic Messages, OpenAI Responses, a text model read with
// the Hermes parser, and Gemini itself; and Gemini CLI (`gemini -p`,
// GOOGLE_GEMINI_BASE_URL at the gateway) reading a file with its own
// read tool through the fake's "agent:read" model on a Chat backend and
// on a Hermes text model, with telemetry and update checks off and an
// egress trap proving it never leaves loopback.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFileSync } from 'node:child_process';
import { writeFileSync, readFileSync, existsSync, mkdirSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { GoogleGenAI, FunctionCallingConfigMode } from '@google/genai';
import { root, tempDir, serve, gatewayLogged, startFakeBackend, startEgressTrap } from './harness.js';

const TOKEN = 'gw-gemini-token-3b7e1f';
const backends = ['chat', 'anthropic', 'responses', 'hermes', 'gemini'];
const FINAL = 'It is 18°C and sunny in Paris.';
let fake, server, base;

before(async () => {
  fake = await startFakeBackend();
  const dir = tempDir();
  const cfg = path.join(dir, 'gateway.yaml');
  const providers = [];
  for (const scenario of ['tools', 'text']) {
    providers.push(
      `  - name: chat_${scenario}\n    model_name: ${scenario}\n    provider_backend: openai_compat\n    api_config: {base_url: "${fake.url}/v1"}`,
      `  - name: anthropic_${scenario}\n    model_name: ${scenario}\n    provider_backend: anthropic\n    api_config: {base_url: "${fake.url}", api_key_env: FAKE_BACKEND_KEY}`,
      `  - name: responses_${scenario}\n    model_name: ${scenario}\n    provider_backend: openai\n    api_config: {base_url: "${fake.url}/v1", api: responses, api_key_env: FAKE_BACKEND_KEY}`,
      `  - name: hermes_${scenario}\n    model_name: "textmodel:${scenario}"\n    provider_backend: vllm_native\n    api_config: {base_url: "${fake.url}/v1"}\n    tool_parser: hermes\n    parsing_format: think_tags\n    generation_config: {two_pass: true, max_thinking_tokens: 64, max_response_tokens: 256}`,
      `  - name: gemini_${scenario}\n    model_name: ${scenario}\n    provider_backend: gemini\n    api_config: {base_url: "${fake.url}", api_key_env: FAKE_BACKEND_KEY}`,
    );
  }
  providers.push(
    `  - name: chat_agent\n    model_name: "agent:read"\n    provider_backend: openai_compat\n    api_config: {base_url: "${fake.url}/v1"}`,
    `  - name: hermes_agent\n    model_name: "textmodel:agent:read"\n    provider_backend: vllm_native\n    api_config: {base_url: "${fake.url}/v1"}\n    tool_parser: hermes\n    parsing_format: think_tags\n    generation_config: {two_pass: true, max_thinking_tokens: 64, max_response_tokens: 256}`,
  );
  const models = backends.flatMap((b) => [`  ${b}-tools: ${b}_tools`, `  ${b}-text: ${b}_text`])
    .concat(['  agent-chat: chat_agent', '  agent-hermes: hermes_agent']);
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
    ...providers,
    'models:',
    ...models,
    '',
  ].join('\n'));
  server = await serve(['--config', cfg], { GATEWAY_TOKEN: TOKEN, FAKE_BACKEND_KEY: 'fake-backend-key' });
  base = server.url.replace(/\/mcp$/, '');
});

after(async () => {
  // The audit log's shutdown can stall on the SQLite file: do not let
  // that hang the suite.
  const killer = setTimeout(() => server?.child.kill('SIGKILL'), 15000);
  await server?.stop();
  clearTimeout(killer);
  fake?.stop();
});

const weather = {
  name: 'get_weather',
  description: 'Weather for a city',
  parametersJsonSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

function genai(apiVersion) {
  return new GoogleGenAI({ apiKey: TOKEN, httpOptions: { baseUrl: base, ...(apiVersion ? { apiVersion } : {}) } });
}

// thoughts joins a response's thought parts.
function thoughts(res) {
  return (res.candidates?.[0]?.content?.parts ?? []).filter((p) => p.thought).map((p) => p.text).join('');
}

for (const backend of backends) {
  const model = `${backend}-tools`;
  // The text model's reasoning is capped by its two passes, and says the
  // same; the fake's other backends send it in two pieces.
  const REASONING = 'The user wants the weather; call get_weather.';

  test(`genai generateContent with a function declaration, ${backend} backend`, async () => {
    const ai = genai();
    const res = await ai.models.generateContent({
      model,
      contents: 'Weather in Paris?',
      config: { tools: [{ functionDeclarations: [weather] }], thinkingConfig: { includeThoughts: true } },
    });
    assert.equal(res.functionCalls.length, 1);
    assert.equal(res.functionCalls[0].name, 'get_weather');
    assert.deepEqual(res.functionCalls[0].args, { city: 'Paris' });
    assert.equal(thoughts(res), REASONING);
    assert.equal(res.candidates[0].finishReason, 'STOP');
    assert.ok(res.usageMetadata.promptTokenCount > 0, JSON.stringify(res.usageMetadata));
    assert.ok(res.usageMetadata.candidatesTokenCount > 0, JSON.stringify(res.usageMetadata));
    assert.equal(res.modelVersion, model);

    // Without includeThoughts, Gemini leaves the thoughts out, and so
    // does the gateway; ANY with the allowed name is a forced call.
    const plain = await ai.models.generateContent({
      model,
      contents: 'Weather in Paris?',
      config: {
        tools: [{ functionDeclarations: [weather] }],
        toolConfig: { functionCallingConfig: { mode: FunctionCallingConfigMode.ANY, allowedFunctionNames: ['get_weather'] } },
      },
    });
    assert.equal(thoughts(plain), '');
    assert.deepEqual(plain.functionCalls.map((c) => [c.name, c.args]), [['get_weather', { city: 'Paris' }]]);
  });

  test(`genai generateContentStream with a function declaration, ${backend} backend`, async () => {
    const ai = genai();
    const stream = await ai.models.generateContentStream({
      model,
      contents: [{ role: 'user', parts: [{ text: 'Weather in Paris?' }] }],
      config: { tools: [{ functionDeclarations: [weather] }], thinkingConfig: { includeThoughts: true } },
    });
    const calls = [];
    let thought = '';
    let last;
    let n = 0;
    for await (const chunk of stream) {
      n++;
      calls.push(...(chunk.functionCalls ?? []));
      thought += thoughts(chunk);
      last = chunk;
    }
    assert.ok(n >= 2, `${n} chunks`);
    assert.deepEqual(calls.map((c) => [c.name, c.args]), [['get_weather', { city: 'Paris' }]]);
    assert.equal(thought, REASONING);
    assert.equal(last.candidates[0].finishReason, 'STOP');
    assert.ok(last.usageMetadata.totalTokenCount > 0);
  });

  test(`genai chat tool loop by hand, streaming and not, ${backend} backend`, async () => {
    const ai = genai();
    const chat = ai.chats.create({ model, config: { tools: [{ functionDeclarations: [weather] }] } });
    const first = await chat.sendMessage({ message: 'Weather in Paris?' });
    assert.equal(first.functionCalls.length, 1);
    const call = first.functionCalls[0];
    assert.deepEqual(call.args, { city: 'Paris' });
    // The answer, streamed, after the call's result; the chat sends the
    // whole history (the model's functionCall part included) back.
    const stream = await chat.sendMessageStream({
      message: [{ functionResponse: { id: call.id, name: call.name, response: { output: '18C, sunny' } } }],
    });
    let text = '';
    let last;
    for await (const chunk of stream) {
      text += chunk.text ?? '';
      last = chunk;
    }
    assert.equal(text, FINAL);
    assert.equal(last.candidates[0].finishReason, 'STOP');
    assert.equal(last.functionCalls, undefined);
    // The SDK keeps each streamed chunk's content as its own model turn.
    const history = chat.getHistory(true);
    const roles = history.map((c) => c.role).filter((r, i, a) => r !== a[i - 1]);
    assert.deepEqual(roles, ['user', 'model', 'user', 'model']);
    assert.ok(history[1].parts.some((p) => p.functionCall?.name === 'get_weather'), JSON.stringify(history[1]));
    assert.equal(history.slice(3).flatMap((c) => c.parts).map((p) => p.text ?? '').join(''), FINAL);

    // The same history, not streamed, in one generateContent.
    const again = await ai.models.generateContent({ model, contents: history.slice(0, 3), config: { tools: [{ functionDeclarations: [weather] }] } });
    assert.equal(again.text, FINAL);
  });

  test(`genai automatic function calling runs the tool loop, ${backend} backend`, async () => {
    const ai = genai('v1');
    const ran = [];
    // A CallableTool: the SDK calls it for each functionCall and sends
    // the result back until the model answers.
    const tool = {
      tool: async () => ({ functionDeclarations: [weather] }),
      callTool: async (calls) => calls.map((c) => {
        ran.push(c.args.city);
        return { functionResponse: { id: c.id, name: c.name, response: { output: `18C, sunny in ${c.args.city}` } } };
      }),
    };
    const res = await ai.models.generateContent({ model, contents: 'Weather in Paris?', config: { tools: [tool] } });
    assert.equal(res.text, FINAL);
    assert.deepEqual(ran, ['Paris']);
    assert.equal(res.automaticFunctionCallingHistory.length, 3);

    const text = await ai.models.generateContent({ model: `${backend}-text`, contents: 'Hello' });
    assert.equal(text.text, 'Hello from the fake backend.');
  });
}

// The README's snippet, as printed there, with only the gateway's address,
// its token and a model name of this test's config put in.
test('the README snippet for @google/genai runs', async () => {
  const readme = readFileSync(path.join(root, 'README.md'), 'utf8');
  const m = readme.match(/```js\n(import \{ GoogleGenAI \} from "@google\/genai";[\s\S]*?)```/);
  assert.ok(m, 'no @google/genai snippet in README.md');
  assert.match(m[1], /http:\/\/127\.0\.0\.1:8686/);
  assert.match(m[1], /model: "qwen3"/);
  const src = m[1].replace('http://127.0.0.1:8686', base).replace('model: "qwen3"', 'model: "chat-tools"');
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', src], {
    cwd: path.join(root, 'e2e'),
    env: { PATH: process.env.PATH, TOOLGATE_TOKEN: TOKEN },
    encoding: 'utf8',
  });
  assert.match(out, /name: 'get_weather'/);
  assert.match(out, /city: 'Paris'/);
});

// geminiBin is Gemini CLI's entry point in e2e/node_modules.
const geminiBin = path.join(root, 'e2e', 'node_modules', '@google', 'gemini-cli', 'bundle', 'gemini.js');

// runGemini runs Gemini CLI non-interactively (`gemini -p PROMPT`) in dir
// against the gateway (GOOGLE_GEMINI_BASE_URL, the token as its key) with
// model for every request, a home of its own whose settings turn
// telemetry, usage statistics and update checks off, and every
// connection not to loopback refused by an egress trap. It resolves
// with {code, stdout, stderr, egress}: egress lists the connections it
// tried to make elsewhere. env is added to its environment (undefined
// unsets).
async function runGemini({ model, prompt, dir, env = {}, timeoutMs = 120000 }) {
  const home = tempDir();
  mkdirSync(path.join(home, '.gemini'));
  writeFileSync(path.join(home, '.gemini', 'settings.json'), JSON.stringify({
    general: { enableAutoUpdate: false, enableAutoUpdateNotification: false },
    privacy: { usageStatisticsEnabled: false },
    telemetry: { enabled: false },
    // An API key, not "gateway" (which this version's non-interactive
    // mode refuses): GOOGLE_GEMINI_BASE_URL still sets where it goes.
    security: { auth: { selectedType: 'gemini-api-key' } },
    model: { name: model },
  }));
  const trap = await startEgressTrap();
  const child = spawn(process.execPath, [geminiBin, '-m', model, '-p', prompt], {
    cwd: dir,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      PATH: process.env.PATH,
      HOME: home,
      GOOGLE_GEMINI_BASE_URL: base,
      GEMINI_API_KEY: TOKEN,
      GEMINI_MODEL: model,
      GEMINI_CLI_TRUST_WORKSPACE: 'true',
      GEMINI_CLI_NO_RELAUNCH: 'true',
      GEMINI_TELEMETRY_ENABLED: 'false',
      NO_BROWSER: 'true',
      CI: 'true',
      HTTP_PROXY: trap.url,
      HTTPS_PROXY: trap.url,
      http_proxy: trap.url,
      https_proxy: trap.url,
      NO_PROXY: '127.0.0.1,localhost',
      no_proxy: '127.0.0.1,localhost',
      ...env,
    },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => { stdout += d; });
  child.stderr.on('data', (d) => { stderr += d; });
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  const code = await new Promise((resolve) => child.on('close', (c, sig) => resolve(c ?? sig)));
  clearTimeout(timer);
  await trap.stop();
  return { code, stdout, stderr, egress: trap.attempts };
}

// gatewayRequests returns the model and status of each request the
// gateway logged since the log was offset characters long.
function gatewayRequests(offset) {
  return [...server.stderr.slice(offset).matchAll(/msg="gateway request".*? model=(\S+) .*?status=(\d+)/g)]
    .map((m) => ({ model: m[1], status: Number(m[2]) }));
}

for (const backend of ['chat', 'hermes']) {
  test(`gemini cli reads a file through the gateway, ${backend} backend`, { skip: !existsSync(geminiBin) && 'Gemini CLI is not installed: npm ci in e2e' }, async () => {
    const dir = tempDir();
    const secret = `quince-${randomBytes(6).toString('hex')}`;
    const file = path.join(dir, 'note.txt');
    writeFileSync(file, `the secret word is ${secret}\n`);
    const offset = server.stderr.length;
    const model = `agent-${backend}`;
    const res = await runGemini({ model, prompt: `What does the file ${file} say?`, dir });
    assert.equal(res.code, 0, `gemini exited ${res.code}\nstdout: ${res.stdout}\nstderr: ${res.stderr}\ngateway: ${server.stderr.slice(offset)}`);
    assert.match(res.stdout, new RegExp(`The file says: .*the secret word is ${secret}`), res.stdout);
    // The tool-call turn, then the answer after the tool result; every
    // request Gemini CLI made (with any model) was answered.
    await gatewayLogged(server, offset, model, 2);
    const reqs = gatewayRequests(offset);
    assert.ok(reqs.filter((r) => r.model === model).length >= 2, `gateway requests: ${JSON.stringify(reqs)}`);
    assert.deepEqual(reqs.filter((r) => r.status !== 200), [], `a request was refused:\n${server.stderr.slice(offset)}`);
    assert.deepEqual(res.egress, [], 'Gemini CLI tried to leave loopback');
  });
}

// The control of the egress checks above: Gemini CLI not pointed at the
// gateway goes to Google, and the trap sees it try.
test('the egress trap catches gemini cli going to Google', { skip: !existsSync(geminiBin) && 'Gemini CLI is not installed: npm ci in e2e' }, async () => {
  const res = await runGemini({ model: 'gemini-2.5-flash', prompt: 'Hello', dir: tempDir(), env: { GOOGLE_GEMINI_BASE_URL: undefined }, timeoutMs: 15000 });
  assert.ok(res.egress.some((a) => a.includes('generativelanguage.googleapis.com')), `egress: ${JSON.stringify(res.egress)}\n${res.stderr}`);
});
