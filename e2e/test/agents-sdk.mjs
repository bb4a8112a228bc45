// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

// A tool loop with the OpenAI Agents SDK (@openai/agents) against the
// model gateway, run by agents.test.js in a process of its own so that
// an egress trap sees every connection it makes:
//
//   node agents-sdk.mjs BASE_URL MODEL responses|chat PROMPT
//
// with the key in TOOLGATE_API_KEY. The agent has one tool, read_file;
// it prints the run's final output. Tracing (which exports to
// api.openai.com) is off.

import { readFileSync } from 'node:fs';
import OpenAI from 'openai';
import { z } from 'zod';
import { Agent, run, tool, setTracingDisabled, OpenAIResponsesModel, OpenAIChatCompletionsModel } from '@openai/agents';

const [baseURL, modelName, api, prompt] = process.argv.slice(2);
setTracingDisabled(true);
const client = new OpenAI({ baseURL, apiKey: process.env.TOOLGATE_API_KEY });
const model = api === 'chat' ? new OpenAIChatCompletionsModel(client, modelName) : new OpenAIResponsesModel(client, modelName);

const readFile = tool({
  name: 'read_file',
  description: 'Read a text file and return its contents.',
  parameters: z.object({ path: z.string().describe('Absolute path of the file') }),
  execute: async ({ path }) => readFileSync(path, 'utf8'),
});

const agent = new Agent({ name: 'reader', instructions: 'Answer with what the files say.', model, tools: [readFile] });
const result = await run(agent, prompt, { stream: true });
for await (const _ of result) {
  // Drain the stream: the agent streams as it runs.
}
await result.completed;
console.log(result.finalOutput);
