// The real agents of the compatibility matrix that speak to an OpenAI-compatible model (codex-acp: the
// Responses API; opencode and copilot: chat completions), each set up as docs/compatibility.md says:
// installed from the npm registry (by scripts/compatibility.js), a home folder of its own under the
// output folder, its config files there, and the repository's scripted model
// (test/real-peers/harness/scripted-probe-model.mjs) on 127.0.0.1, so nothing leaves the machine.
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The packages, pinned to the versions docs/compatibility.md names. */
export const OPENAI_PACKAGES = ['@zed-industries/codex-acp@0.16.0', 'opencode-ai@1.18.33', '@github/copilot@1.0.102'];

const MODEL = 'probe-model';

/** Starts the scripted model on a free port (its process group is the caller's to end); resolves with the port. */
function startModel(root, out, children) {
  const model = spawn(process.execPath, [join(root, 'test', 'real-peers', 'harness', 'scripted-probe-model.mjs'), '0', join(out, 'model-requests.log')],
    { stdio: ['ignore', 'pipe', 'ignore'], detached: true });
  children.push(model);
  return new Promise((resolve, reject) => {
    let got = '';
    model.stdout.on('data', (d) => {
      got += d;
      if (got.includes('\n')) resolve(Number(got.trim()));
    });
    model.on('exit', (code) => reject(new Error(`the scripted model exited (${code})`)));
  });
}

/** A home folder with XDG folders inside it: the agent reads and writes nothing of the real user's. */
function home(out, id) {
  const h = join(out, `home-${id}`);
  for (const d of ['.config', '.cache', '.local/share', '.local/state']) mkdirSync(join(h, d), { recursive: true });
  return { dir: h, env: { HOME: h, XDG_CONFIG_HOME: join(h, '.config'), XDG_CACHE_HOME: join(h, '.cache'), XDG_DATA_HOME: join(h, '.local', 'share'), XDG_STATE_HOME: join(h, '.local', 'state') } };
}

/** The agents' entries of the `probe agents` config, their model started. */
export async function openaiAgents({ root, out, scratch, children }) {
  const port = await startModel(root, out, children);
  const base = `http://127.0.0.1:${port}/v1`;
  const bin = (name) => join(scratch, 'node_modules', '.bin', name);

  const codex = home(out, 'codex');
  mkdirSync(join(codex.dir, '.codex'), { recursive: true });
  writeFileSync(join(codex.dir, '.codex', 'config.toml'), [
    `model = "${MODEL}"`, 'model_provider = "scripted"', '', '[model_providers.scripted]', 'name = "scripted"',
    `base_url = "${base}"`, 'env_key = "CODEX_API_KEY"', 'wire_api = "responses"', '',
  ].join('\n'));

  const opencode = home(out, 'opencode');
  mkdirSync(join(opencode.dir, '.config', 'opencode'), { recursive: true });
  writeFileSync(join(opencode.dir, '.config', 'opencode', 'opencode.json'), `${JSON.stringify({
    provider: { scripted: { npm: '@ai-sdk/openai-compatible', name: 'scripted', options: { baseURL: base, apiKey: 'offline' }, models: { [MODEL]: { name: MODEL } } } },
    model: `scripted/${MODEL}`, small_model: `scripted/${MODEL}`,
    // Asking before edits and commands gives the probe permission requests to answer.
    permission: { bash: 'ask', edit: 'ask' }, autoupdate: false, share: 'disabled',
  }, null, 2)}\n`);

  const copilot = home(out, 'copilot');
  return [
    {
      // It does not exit when its stdin closes: the probe ends its process group.
      id: 'codex-acp', command: [bin('codex-acp')], cwd: out, auth: 'codex-api-key',
      env: { ...codex.env, CODEX_HOME: join(codex.dir, '.codex'), CODEX_API_KEY: 'offline', OPENAI_API_KEY: 'offline' },
    },
    {
      // It starts in 20-40 s on a loaded 2-core machine (`opencode --version` alone: 11 s, 2.3 s of CPU): a longer answer time (its start-up gets 10 s more).
      id: 'opencode', command: [bin('opencode'), 'acp'], cwd: out, timeoutMs: 60000,
      env: {
        ...opencode.env, OPENCODE_DISABLE_AUTOUPDATE: '1', OPENCODE_DISABLE_MODELS_FETCH: '1', OPENCODE_DISABLE_DEFAULT_PLUGINS: '1',
        OPENCODE_DISABLE_LSP_DOWNLOAD: '1', OPENCODE_DISABLE_SHARE: '1',
      },
    },
    {
      // Bring-your-own-key mode, offline.
      id: 'copilot', command: [bin('copilot'), '--acp'], cwd: out, timeoutMs: 30000,
      env: { ...copilot.env, COPILOT_HOME: join(copilot.dir, '.copilot'), COPILOT_OFFLINE: 'true', COPILOT_PROVIDER_BASE_URL: base, COPILOT_PROVIDER_API_KEY: 'offline', COPILOT_MODEL: MODEL },
    },
  ];
}
