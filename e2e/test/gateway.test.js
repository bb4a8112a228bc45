// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

// The model gateway with real clients: the official openai and
// @anthropic-ai/sdk SDKs, LangChain's ChatOpenAI and Vercel's ai, each
// against `toolgate serve` in front of cmd/fakebackend, on every
// front door, streaming and not, with a Chat Completions, a Messages and
// a Responses backend behind it. Each test checks text, reasoning, tool
// calls with their arguments, the stop reason and usage.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import OpenAI from 'openai';
import Anthropic from '@anthropic-ai/sdk';
import { ChatOpenAI } from '@langchain/openai';
import { tool as lcTool } from '@langchain/core/tools';
import { streamText, generateText, tool as aiTool, isStepCount } from 'ai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { z } from 'zod';
import { tempDir, serve, startFakeBackend } from './harness.js';

const TOKEN = 'gw-e2e-token-5f2c9a';
// hermes is a text model without tool support behind a vLLM-style
// server: the gateway renders the Hermes tools prompt, reads the calls and
// the <think> reasoning from its text, and caps the reasoning with two
// passes.
const backends = ['chat', 'anthropic', 'responses', 'hermes'];
let fake, server, base;

// Recorded traffic of real providers (../shared/corpora/gateway), replayed
// by the fake backend, with what each recording holds.
const recordings = [
  { name: 'deepseek', file: 'openai-compatible/vercel-deepseek-tool-call.chunks.txt', backend: 'openai_compat', calls: [['weather', { location: 'San Francisco' }]], reasoning: true },
  { name: 'xai', file: 'openai-compatible/vercel-xai-tool-call.chunks.txt', backend: 'openai_compat', calls: [['weather', { location: 'San Francisco' }]], reasoning: true },
  { name: 'qwen', file: 'openai-compatible/vercel-alibaba-tool-call.chunks.txt', backend: 'openai_compat', calls: [['weather', { location: 'San Francisco' }]] },
  { name: 'groq', file: 'openai-compatible/vercel-groq-tool-call.chunks.txt', backend: 'openai_compat', calls: [['weather', {}]] },
  { name: 'cerebras', file: 'openai-compatible/vercel-cerebras-structured-output-tools.1.chunks.txt', backend: 'openai_compat', calls: [['nonUsefulTool', {}]], reasoning: true },
  { name: 'claude-compat', file: 'openai-compatible/vercel-anthropic-fallback-tool-call.sse', backend: 'openai_compat', calls: [['read_file', { path: 'a.txt' }]] },
  { name: 'gpt4o', file: 'openai-chat/openai-python-gpt-4o-parallel-tool-calls.sse', backend: 'openai', calls: [['GetWeatherArgs', { city: 'Edinburgh', country: 'GB', units: 'c' }], ['get_stock_price', { ticker: 'AAPL', exchange: 'NASDAQ' }]] },
  { name: 'claude', file: 'anthropic/vercel-anthropic-json-tool.1.chunks.txt', backend: 'anthropic', calls: [['json', { elements: [{ location: 'San Francisco', temperature: 58, condition: 'sunny' }] }]] },
  { name: 'claude-thinking', file: 'anthropic/vercel-anthropic-clear-thinking.1.chunks.txt', backend: 'anthropic', calls: [], text: '925 ÷ 5 = 185', reasoning: true },
  { name: 'gpt5-responses', file: 'openai-responses/vercel-openai-reasoning-encrypted-content.1.chunks.txt', backend: 'openai', api: 'responses', calls: [['calculator', { a: 12, b: 7, op: 'add' }]], reasoning: true },
];

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
    );
  }
  for (const scenario of ['tools', 'text']) {
    providers.push(`  - name: hermes_${scenario}\n    model_name: "textmodel:${scenario}"\n    provider_backend: vllm_native\n    api_config: {base_url: "${fake.url}/v1"}\n    tool_parser: hermes\n    parsing_format: think_tags\n    generation_config: {two_pass: true, max_thinking_tokens: 64, max_response_tokens: 256}`);
  }
  for (const r of recordings) {
    providers.push(`  - name: rec_${r.name}\n    model_name: "recorded:${r.file}"\n    provider_backend: ${r.backend}\n    api_config: {base_url: "${r.backend === 'anthropic' ? fake.url : fake.url + '/v1'}", api_key_env: FAKE_BACKEND_KEY${r.api ? ', api: ' + r.api : ''}}`);
  }
  const models = backends.flatMap((b) => [`  ${b}-tools: ${b}_tools`, `  ${b}-text: ${b}_text`]).concat(recordings.map((r) => `  rec-${r.name}: rec_${r.name}`));
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
    'sources:',
    '  - name: tasks',
    '    demo: {}',
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
  await server?.stop();
  fake?.stop();
});

const weatherParams = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };
const openaiTools = [{ type: 'function', function: { name: 'get_weather', description: 'Weather for a city', parameters: weatherParams } }];
const FINAL = 'It is 18°C and sunny in Paris.';

function openai() {
  return new OpenAI({ baseURL: `${base}/v1`, apiKey: TOKEN, maxRetries: 0 });
}

for (const backend of backends) {
  test(`openai chat, not streaming, ${backend} backend`, async () => {
    const res = await openai().chat.completions.create({ model: `${backend}-tools`, messages: [{ role: 'user', content: 'Weather in Paris?' }], tools: openaiTools });
    const msg = res.choices[0].message;
    assert.equal(res.choices[0].finish_reason, 'tool_calls');
    assert.equal(msg.tool_calls.length, 1);
    assert.equal(msg.tool_calls[0].function.name, 'get_weather');
    assert.deepEqual(JSON.parse(msg.tool_calls[0].function.arguments), { city: 'Paris' });
    assert.equal(msg.reasoning_content, 'The user wants the weather; call get_weather.');
    assert.equal(res.model, `${backend}-tools`);
    assert.ok(res.usage.completion_tokens > 0);
  });

  test(`openai chat stream helper and runTools, ${backend} backend`, async () => {
    const client = openai();
    const stream = client.chat.completions.stream({ model: `${backend}-tools`, messages: [{ role: 'user', content: 'Weather in Paris?' }], tools: openaiTools, stream_options: { include_usage: true } });
    const final = await stream.finalChatCompletion();
    assert.equal(final.choices[0].finish_reason, 'tool_calls');
    assert.deepEqual(JSON.parse(final.choices[0].message.tool_calls[0].function.arguments), { city: 'Paris' });
    assert.ok(final.usage.prompt_tokens > 0);

    const runner = client.chat.completions.runTools({
      model: `${backend}-tools`,
      messages: [{ role: 'user', content: 'Weather in Paris?' }],
      tools: [{ type: 'function', function: { name: 'get_weather', parameters: weatherParams, function: async ({ city }) => `18C, sunny in ${city}`, parse: JSON.parse } }],
    });
    assert.equal(await runner.finalContent(), FINAL);
  });

  test(`openai responses, streaming and not, ${backend} backend`, async () => {
    const client = openai();
    const tools = [{ type: 'function', name: 'get_weather', description: 'Weather for a city', parameters: weatherParams, strict: false }];
    const res = await client.responses.create({ model: `${backend}-tools`, input: 'Weather in Paris?', tools, store: false });
    const call = res.output.find((o) => o.type === 'function_call');
    assert.equal(call.name, 'get_weather');
    assert.deepEqual(JSON.parse(call.arguments), { city: 'Paris' });
    assert.ok(res.usage.output_tokens > 0);

    const stream = client.responses.stream({ model: `${backend}-tools`, input: [
      { role: 'user', content: 'Weather in Paris?' },
      { type: 'function_call', call_id: call.call_id, name: call.name, arguments: call.arguments },
      { type: 'function_call_output', call_id: call.call_id, output: '18C, sunny' },
    ], tools, store: false });
    const final = await stream.finalResponse();
    assert.equal(final.output_text, FINAL);
    assert.equal(final.status, 'completed');
  });

  test(`anthropic messages, stream and tool loop, ${backend} backend`, async () => {
    const client = new Anthropic({ baseURL: base, apiKey: TOKEN, maxRetries: 0 });
    const tools = [{ name: 'get_weather', description: 'Weather for a city', input_schema: weatherParams }];
    const messages = [{ role: 'user', content: 'Weather in Paris?' }];
    const first = await client.messages.create({ model: `${backend}-tools`, max_tokens: 512, messages, tools });
    assert.equal(first.stop_reason, 'tool_use');
    const use = first.content.find((b) => b.type === 'tool_use');
    assert.deepEqual(use.input, { city: 'Paris' });
    assert.ok(first.usage.output_tokens > 0);

    const stream = client.messages.stream({ model: `${backend}-tools`, max_tokens: 512, messages, tools });
    const streamed = await stream.finalMessage();
    assert.equal(streamed.stop_reason, 'tool_use');
    assert.deepEqual(streamed.content.find((b) => b.type === 'tool_use').input, { city: 'Paris' });

    messages.push({ role: 'assistant', content: first.content });
    messages.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: '18C, sunny' }] });
    const second = await client.messages.stream({ model: `${backend}-tools`, max_tokens: 512, messages, tools }).finalMessage();
    assert.equal(second.stop_reason, 'end_turn');
    assert.equal(second.content.filter((b) => b.type === 'text').map((b) => b.text).join(''), FINAL);
  });

  test(`langchain ChatOpenAI bindTools, invoke and stream, ${backend} backend`, async () => {
    const model = new ChatOpenAI({ model: `${backend}-tools`, apiKey: TOKEN, configuration: { baseURL: `${base}/v1` }, maxRetries: 0 });
    const weather = lcTool(async ({ city }) => `18C in ${city}`, { name: 'get_weather', description: 'Weather for a city', schema: z.object({ city: z.string() }) });
    const bound = model.bindTools([weather]);
    const msg = await bound.invoke('Weather in Paris?');
    assert.equal(msg.tool_calls.length, 1);
    assert.equal(msg.tool_calls[0].name, 'get_weather');
    assert.deepEqual(msg.tool_calls[0].args, { city: 'Paris' });
    assert.ok(msg.tool_calls[0].id);
    assert.equal(msg.additional_kwargs.reasoning_content, 'The user wants the weather; call get_weather.');

    let full;
    for await (const chunk of await bound.stream('Weather in Paris?')) full = full ? full.concat(chunk) : chunk;
    assert.equal(full.tool_calls.length, 1);
    assert.deepEqual(full.tool_calls[0].args, { city: 'Paris' });

    const text = new ChatOpenAI({ model: `${backend}-text`, apiKey: TOKEN, configuration: { baseURL: `${base}/v1` }, maxRetries: 0 });
    const answer = await text.invoke('Hello');
    assert.equal(answer.content, 'Hello from the fake backend.');
  });

  test(`vercel ai streamText with tools over several steps, ${backend} backend`, async () => {
    const provider = createOpenAICompatible({ name: 'toolgate', baseURL: `${base}/v1`, apiKey: TOKEN, includeUsage: true });
    const tools = { get_weather: aiTool({ description: 'Weather for a city', inputSchema: z.object({ city: z.string() }), execute: async ({ city }) => `18C, sunny in ${city}` }) };
    const result = streamText({ model: provider(`${backend}-tools`), prompt: 'Weather in Paris?', tools, stopWhen: isStepCount(3) });
    let text = '';
    for await (const part of result.textStream) text += part;
    assert.equal(text, FINAL);
    const steps = await result.steps;
    assert.equal(steps.length, 2);
    assert.equal(steps[0].toolCalls[0].toolName, 'get_weather');
    assert.deepEqual(steps[0].toolCalls[0].input, { city: 'Paris' });
    assert.equal(steps[0].finishReason, 'tool-calls');
    const usage = await result.totalUsage;
    assert.ok(usage.outputTokens > 0);

    const gen = await generateText({ model: provider(`${backend}-text`), prompt: 'Hello' });
    assert.equal(gen.text, 'Hello from the fake backend.');
    assert.equal(gen.reasoningText, 'A greeting.');
  });
}

test('POST /generate: the native contract, Hermes parsing and two passes', async () => {
  const res = await fetch(`${base}/generate`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
    body: JSON.stringify({
      model: 'hermes-tools', messages: [{ role: 'user', content: 'Weather in Paris?' }], temperature: 0.6,
      two_pass: true, think_tag: 'think', max_thinking_tokens: 64, max_response_tokens: 256,
      tools: openaiTools, tool_choice: 'auto', tool_parser: 'hermes',
    }),
  });
  assert.equal(res.status, 200);
  const body = await res.json();
  assert.equal(body.thinking, 'The user wants the weather; call get_weather.');
  assert.equal(body.tool_calls.length, 1);
  assert.equal(body.tool_calls[0].name, 'get_weather');
  assert.deepEqual(body.tool_calls[0].arguments, { city: 'Paris' });
  assert.ok(body.tool_calls[0].id);
  assert.equal(body.pre_tool_text.trim(), '');

  const bad = await fetch(`${base}/generate`, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}` }, body: '{"messages": [], "stream": true}' });
  assert.equal(bad.status, 400);
  assert.match((await bad.json()).error.message, /\/stream/);
});

test('gateway refuses a wrong token and an unknown model in each API\'s shape', async () => {
  const bad = new OpenAI({ baseURL: `${base}/v1`, apiKey: 'wrong', maxRetries: 0 });
  await assert.rejects(bad.chat.completions.create({ model: 'chat-tools', messages: [{ role: 'user', content: 'hi' }] }), (e) => e.status === 401);
  const anth = new Anthropic({ baseURL: base, apiKey: TOKEN, maxRetries: 0 });
  await assert.rejects(anth.messages.create({ model: 'no-such-model', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] }), (e) => e.status === 404 && e.error?.type === 'error');
  const models = await openai().models.list();
  const ids = [];
  for await (const m of models) ids.push(m.id);
  assert.ok(ids.includes('chat-tools') && ids.includes('anthropic-text'), ids.join(','));
});

// Every recording through every front door, streamed, read by the
// front door's own SDK: the recorded calls with their arguments, text and
// reasoning, and the tool-call stop reason.
for (const r of recordings) {
  const model = `rec-${r.name}`;
  test(`recorded ${r.name} through the three front doors`, async () => {
    const stopped = r.calls.length > 0;
    const chat = await openai().chat.completions.stream({ model, messages: [{ role: 'user', content: 'go' }], tools: openaiTools }).finalChatCompletion();
    const cm = chat.choices[0].message;
    assert.deepEqual((cm.tool_calls ?? []).map((c) => [c.function.name, JSON.parse(c.function.arguments)]), r.calls);
    assert.equal(chat.choices[0].finish_reason, stopped ? 'tool_calls' : 'stop');
    if (r.text) assert.equal(cm.content, r.text);

    const anth = await new Anthropic({ baseURL: base, apiKey: TOKEN, maxRetries: 0 }).messages.stream({ model, max_tokens: 256, messages: [{ role: 'user', content: 'go' }] }).finalMessage();
    assert.deepEqual(anth.content.filter((b) => b.type === 'tool_use').map((b) => [b.name, b.input]), r.calls);
    assert.equal(anth.stop_reason, stopped ? 'tool_use' : 'end_turn');
    if (r.reasoning) assert.ok(anth.content.some((b) => b.type === 'thinking' && b.thinking.length > 0), 'thinking block');
    if (r.text) assert.equal(anth.content.filter((b) => b.type === 'text').map((b) => b.text).join(''), r.text);

    const resp = await openai().responses.stream({ model, input: 'go', store: false }).finalResponse();
    assert.deepEqual(resp.output.filter((o) => o.type === 'function_call').map((o) => [o.name, JSON.parse(o.arguments)]), r.calls);
    assert.equal(resp.status, 'completed');
    if (r.reasoning) assert.ok(resp.output.some((o) => o.type === 'reasoning'), 'reasoning item');
  });
}
