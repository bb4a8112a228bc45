// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

// Shared helpers: build toolgate, start `toolgate serve`, connect the
// official TypeScript SDK client, read the audit log.

import { spawn, execFileSync } from 'node:child_process';
import net from 'node:net';
import { mkdtempSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
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

// gatewayLogged resolves once server's log since offset characters holds
// at least n "gateway request" lines for model, or after ms. serve
// buffers its per-request log lines for up to 50 ms, so a line may reach
// the log shortly after the client had its answer; the wait ends with
// another 100 ms for lines of other requests flushed behind it.
export async function gatewayLogged(server, offset, model, n, ms = 10000) {
  const count = () => [...server.stderr.slice(offset).matchAll(/msg="gateway request".*? model=(\S+) /g)]
    .filter((m) => m[1] === model).length;
  const deadline = Date.now() + ms;
  while (count() < n && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  await new Promise((r) => setTimeout(r, 100));
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

// auditRecords returns the audit log's records of calls, oldest first,
// one a call: a call that ran has an intent, written before the tool ran
// (with the justification), and an outcome (with the status); they are
// given as one record, the outcome's with the intent's justification.
export function auditRecords(db) {
  if (!existsSync(db)) return [];
  const conn = new DatabaseSync(db, { readOnly: true });
  try {
    const rows = conn.prepare('SELECT seq, principal, tool, call_id, status, code, justification, is_error, kind FROM audit ORDER BY id').all();
    const open = new Map();
    const out = [];
    for (const r of rows) {
      const key = `${r.principal}\u0000${r.tool}\u0000${r.call_id}`;
      if (r.kind === 'intent') {
        open.set(key, r);
        continue;
      }
      if (r.kind === 'outcome' && open.has(key)) {
        r.justification ||= open.get(key).justification;
        open.delete(key);
      }
      out.push(r);
    }
    return out;
  } finally {
    conn.close();
  }
}

// text joins a result's text content.
export function text(result) {
  return result.content.filter((c) => c.type === 'text').map((c) => c.text).join('');
}

export const justification = 'the user asked for this in the e2e test';

// claudeBinary returns Claude Code's native binary from e2e/node_modules:
// the platform package's (present even when npm skipped the wrapper's
// postinstall), else the wrapper's bin.
export function claudeBinary() {
  const platform = path.join(root, 'e2e', 'node_modules', '@anthropic-ai', `claude-code-${process.platform}-${process.arch}`, 'claude');
  if (existsSync(platform)) return platform;
  return path.join(root, 'e2e', 'node_modules', '@anthropic-ai', 'claude-code', 'bin', 'claude.exe');
}

// startEgressTrap starts a proxy on loopback that lets nothing through:
// give its url as HTTP(S)_PROXY to a program that must not leave
// loopback, and read attempts (the request lines it got) afterwards.
export function startEgressTrap() {
  const attempts = [];
  const srv = net.createServer((sock) => {
    sock.once('data', (d) => {
      attempts.push(d.toString().split('\r\n')[0]);
      sock.end('HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n');
    });
    sock.on('error', () => {});
  });
  return new Promise((resolve) => srv.listen(0, '127.0.0.1', () => {
    resolve({ url: `http://127.0.0.1:${srv.address().port}`, attempts, stop: () => new Promise((r) => srv.close(r)) });
  }));
}

// runClaude runs Claude Code (`claude -p PROMPT`) against the gateway at
// url (toolgate's base URL, without /v1) with token as its API key and
// model for every request, in dir (a new temporary folder when not
// given), with a home of its own, telemetry, update checks and other
// non-essential traffic off, and every connection that is not to
// loopback refused by an egress trap. It resolves with {code, stdout,
// stderr, dir, egress}: egress lists the connections Claude Code tried
// to make elsewhere (none expected). opts: dir, env (added), args
// (added before the prompt), timeoutMs (default 120 s).
export async function runClaude({ url, token, model, prompt, dir, env = {}, args = [], timeoutMs = 120000 }) {
  dir ??= tempDir();
  const home = tempDir();
  const trap = await startEgressTrap();
  const child = spawn(claudeBinary(), ['-p', '--model', model, ...args, prompt], {
    cwd: dir,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      PATH: process.env.PATH,
      HOME: home,
      CLAUDE_CONFIG_DIR: path.join(home, '.claude'),
      ANTHROPIC_BASE_URL: url,
      ANTHROPIC_API_KEY: token,
      ANTHROPIC_MODEL: model,
      ANTHROPIC_SMALL_FAST_MODEL: model,
      ANTHROPIC_DEFAULT_HAIKU_MODEL: model,
      DISABLE_TELEMETRY: '1',
      DISABLE_ERROR_REPORTING: '1',
      DISABLE_AUTOUPDATER: '1',
      DISABLE_BUG_COMMAND: '1',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
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
  return { code, stdout, stderr, dir, egress: trap.attempts };
}

// egressEnv points every proxy variable at the trap, loopback excepted.
function egressEnv(trap) {
  return {
    HTTP_PROXY: trap.url,
    HTTPS_PROXY: trap.url,
    ALL_PROXY: trap.url,
    http_proxy: trap.url,
    https_proxy: trap.url,
    all_proxy: trap.url,
    NO_PROXY: '127.0.0.1,localhost',
    no_proxy: '127.0.0.1,localhost',
  };
}

// runTrapped runs bin ARGS in cwd with env (PATH added, the proxy
// variables set to a new egress trap) and resolves with {code, stdout,
// stderr, egress}; it is killed after timeoutMs.
async function runTrapped(bin, args, { cwd, env, timeoutMs }) {
  const trap = await startEgressTrap();
  const child = spawn(bin, args, {
    cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { PATH: process.env.PATH, ...env, ...egressEnv(trap) },
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

// codexBinary returns the Codex CLI's launcher from e2e/node_modules.
export function codexBinary() {
  return path.join(root, 'e2e', 'node_modules', '@openai', 'codex', 'bin', 'codex.js');
}

// codexConfig is the config.toml that puts Codex on the gateway at url
// (toolgate's base URL, without /v1) as a custom model provider speaking
// Responses, with its API key in TOOLGATE_API_KEY: approvals never asked
// (codex exec runs unattended), commands in the read-only sandbox, and
// update checks, analytics, feedback, plugins and apps off.
export function codexConfig(url, model) {
  return [
    `model = "${model}"`,
    'model_provider = "toolgate"',
    'approval_policy = "never"',
    'sandbox_mode = "read-only"',
    'check_for_update_on_startup = false',
    '',
    '[model_providers.toolgate]',
    'name = "toolgate"',
    `base_url = "${url}/v1"`,
    'env_key = "TOOLGATE_API_KEY"',
    'wire_api = "responses"',
    '',
    '[analytics]',
    'enabled = false',
    '',
    '[feedback]',
    'enabled = false',
    '',
    // Plugins sync a marketplace from GitHub, remote plugins and apps
    // (connectors) come from chatgpt.com: none is a tool of the loop.
    '[features]',
    'plugins = false',
    'remote_plugin = false',
    'apps = false',
    '',
  ].join('\n');
}

// runCodex runs the Codex CLI (`codex exec PROMPT`, its default tools
// on) against the gateway at url with token as its key and model, in
// dir (a new temporary folder when not given), with a CODEX_HOME of its
// own holding codexConfig, every connection that is not to loopback
// refused by an egress trap. It resolves like runClaude.
export async function runCodex({ url, token, model, prompt, dir, timeoutMs = 120000 }) {
  dir ??= tempDir();
  const home = tempDir();
  const codexHome = path.join(home, '.codex');
  mkdirSync(codexHome);
  writeFileSync(path.join(codexHome, 'config.toml'), codexConfig(url, model));
  const res = await runTrapped(process.execPath, [codexBinary(), 'exec', '--skip-git-repo-check', prompt], {
    cwd: dir,
    env: { HOME: home, CODEX_HOME: codexHome, TOOLGATE_API_KEY: token },
    timeoutMs,
  });
  return { ...res, dir };
}

// opencodeBinary returns opencode's native binary from e2e/node_modules:
// the platform package's (present even when npm skipped the wrapper's
// postinstall), else the one the wrapper's postinstall put in place.
export function opencodeBinary() {
  const platform = path.join(root, 'e2e', 'node_modules', `opencode-${process.platform}-${process.arch}`, 'bin', 'opencode');
  if (existsSync(platform)) return platform;
  return path.join(root, 'e2e', 'node_modules', 'opencode-ai', 'bin', 'opencode.exe');
}

// opencodeConfig is the opencode.json that puts opencode on the gateway
// at url (toolgate's base URL, without /v1) as an OpenAI-compatible
// provider "toolgate" serving model, its key read from TOOLGATE_API_KEY;
// auto-update and sharing off.
export function opencodeConfig(url, model) {
  return JSON.stringify({
    $schema: 'https://opencode.ai/config.json',
    autoupdate: false,
    share: 'disabled',
    model: `toolgate/${model}`,
    small_model: `toolgate/${model}`,
    provider: {
      toolgate: {
        npm: '@ai-sdk/openai-compatible',
        name: 'toolgate',
        options: { baseURL: `${url}/v1`, apiKey: '{env:TOOLGATE_API_KEY}' },
        models: { [model]: { name: model, tool_call: true } },
      },
    },
  }, null, 2);
}

// opencodeEnv turns off what opencode fetches on its own: the models.dev
// catalogue, updates, LSP servers, sharing, and its default plugins.
export const opencodeEnv = {
  OPENCODE_DISABLE_AUTOUPDATE: '1',
  OPENCODE_DISABLE_MODELS_FETCH: '1',
  OPENCODE_DISABLE_LSP_DOWNLOAD: '1',
  OPENCODE_DISABLE_SHARE: '1',
  OPENCODE_DISABLE_DEFAULT_PLUGINS: '1',
};

// opencodeNoPluginInstall marks @opencode-ai/plugin as installed in
// opencode's config directory dir: opencode otherwise runs an npm
// install there in the background, which goes to registry.npmjs.org.
// The plugin is the SDK for writing opencode plugins; a run without
// plugins never loads it.
export function opencodeNoPluginInstall(dir) {
  mkdirSync(path.join(dir, 'node_modules'), { recursive: true });
  writeFileSync(path.join(dir, 'package-lock.json'), JSON.stringify({ packages: { '': { dependencies: { '@opencode-ai/plugin': '*' } } } }));
}

// runOpencode runs opencode (`opencode run PROMPT`) against the gateway
// at url with token as its key and model, in dir, with a home of its own
// holding opencodeConfig, every connection that is not to loopback
// refused by an egress trap. It resolves like runClaude.
export async function runOpencode({ url, token, model, prompt, dir, timeoutMs = 120000 }) {
  dir ??= tempDir();
  const home = tempDir();
  const config = path.join(home, '.config', 'opencode');
  mkdirSync(config, { recursive: true });
  writeFileSync(path.join(config, 'opencode.json'), opencodeConfig(url, model));
  opencodeNoPluginInstall(config);
  const res = await runTrapped(opencodeBinary(), ['run', prompt], {
    cwd: dir,
    env: {
      HOME: home,
      XDG_CONFIG_HOME: path.join(home, '.config'),
      XDG_DATA_HOME: path.join(home, '.local', 'share'),
      XDG_CACHE_HOME: path.join(home, '.cache'),
      XDG_STATE_HOME: path.join(home, '.local', 'state'),
      TOOLGATE_API_KEY: token,
      ...opencodeEnv,
    },
    timeoutMs,
  });
  return { ...res, dir };
}

// runAgentsSDK runs e2e/test/agents-sdk.mjs (the OpenAI Agents SDK's tool
// loop with a read_file tool) against the gateway at url with token and
// model through api (responses or chat), in a process of its own whose
// fetch goes through the proxy variables (NODE_USE_ENV_PROXY), so that
// the egress trap sees any connection beyond loopback. It resolves like
// runClaude.
export async function runAgentsSDK({ url, token, model, api, prompt, timeoutMs = 60000 }) {
  const dir = tempDir();
  const script = path.join(root, 'e2e', 'test', 'agents-sdk.mjs');
  const res = await runTrapped(process.execPath, [script, `${url}/v1`, model, api, prompt], {
    cwd: dir,
    env: { HOME: dir, TOOLGATE_API_KEY: token, NODE_USE_ENV_PROXY: '1', OPENAI_AGENTS_DISABLE_TRACING: '1' },
    timeoutMs,
  });
  return { ...res, dir };
}
