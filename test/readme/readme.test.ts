/**
 * The examples of the README and of every page of docs/, read from the Markdown itself and run as a
 * user would paste them, so the docs cannot drift: the fixture test file in a new project, every
 * editor configuration (JSON) through the real tap with the SDK's example client, every
 * `acp-inspect` command line of the shell examples through the real binary, and every transcript
 * example (JSONL) through `check` and `import`. A block of another kind must be an illustration
 * (`text`, or no language: a usage line, sample output); a shell block marked `requires=COMMAND`
 * runs once this build has that command.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync, spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync, chmodSync } from 'node:fs';
import { join } from 'node:path';
import { BIN, EXAMPLE_AGENT, ROOT, cli, docPages, markdownCodeBlocks, run, runExampleClient, sh, stopProcess, tempDir } from '../helpers.js';
import { startReceiver, type Receiver } from '../otel/receiver.js';
import { startRemoteAgent } from '../remote/helpers.js';

const SAMPLE = join(ROOT, 'test', 'replay', 'fixtures', 'sdk-example.jsonl');

/** Every fenced block of the README and docs/*.md, README first, with the page it is on. */
const BLOCKS = docPages().flatMap(({ file, text }) => markdownCodeBlocks(text).map((b) => ({ ...b, file })));
/** The commands of this build (`acp-inspect --help`), for blocks marked `requires=COMMAND`. */
const HELP = execFileSync(process.execPath, [BIN, '--help'], { encoding: 'utf8' });
const hasCommand = (name: string) => new RegExp(`^\\s+${name}\\b`, 'm').test(HELP);
/** The command a block waits for, when this build does not have it yet. */
const waitsFor = (info: string) => {
  const need = /(?:^|\s)requires=(\S+)/.exec(info)?.[1];
  return need !== undefined && !hasCommand(need) ? need : undefined;
};
const codeBlocks = (lang: string) => BLOCKS.filter((b) => b.lang === lang && waitsFor(b.info) === undefined).map((b) => b.body);

describe('the code blocks of the README and docs/', () => {
  it('are each of a kind the tests run (sh, json, ts, jsonl) or an illustration (text or unlabelled, the Neovim lua)', () => {
    expect(BLOCKS.length).toBeGreaterThan(20);
    for (const b of BLOCKS) expect(['sh', 'json', 'ts', 'jsonl', 'text', '', 'lua'], `${b.file}: a \`\`\`${b.lang} block`).toContain(b.lang);
    for (const b of BLOCKS.filter((x) => x.lang === 'lua')) expect(b.body, b.file).toMatch(/"acp-inspect",.*"--",/);
    // Every ts block is a complete test file that the fixture test runs.
    expect(BLOCKS.filter((b) => b.lang === 'ts').map((b) => b.body.split('\n')[0])).toEqual(['// test/session.test.ts']);
    // A block that waits for a command says which one, and it is a command being built.
    for (const b of BLOCKS.filter((x) => x.info)) expect(b.info, b.file).toMatch(/^requires=[a-z-]+$/);
  });

  it('link to pages and headings that exist', () => {
    const slug = (h: string) => h.trim().toLowerCase().replace(/[^\p{L}\p{N} _-]/gu, '').replace(/ /g, '-');
    const pages = new Map(docPages().map((p) => [p.file, p.text]));
    const anchors = (text: string) => new Set([...text.matchAll(/^#{1,6} (.+)$/gm)].map((m) => slug(m[1]!)));
    const broken: string[] = [];
    for (const [file, text] of pages) {
      const prose = text.replace(/^( *)```[\s\S]*?^\1```$/gm, '');
      for (const m of prose.matchAll(/\]\(([^)\s]+)\)/g)) {
        const target = m[1]!;
        if (/^[a-z]+:/.test(target)) continue;
        const [path, hash] = target.split('#') as [string, string | undefined];
        const page = path === '' ? file : join(file.includes('/') ? 'docs' : '', path).replace(/^docs\/\.\.\//, '');
        if (path.endsWith('.png')) continue;
        // A file that is not a page (a committed proof, such as a matrix's JSON) only has to exist.
        if (!path.endsWith('.md') && !hash && existsSync(join(ROOT, page))) continue;
        if (!pages.has(page)) {
          broken.push(`${file}: ${target}`);
          continue;
        }
        if (hash && !anchors(pages.get(page)!).has(hash)) broken.push(`${file}: ${target}`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('every docs page is linked from the README, which is the map to them', () => {
    const readme = docPages()[0]!.text;
    const unlinked = docPages().slice(1).map((p) => p.file).filter((f) => !readme.includes(`](${f})`) && !readme.includes(`](${f}#`));
    expect(unlinked).toEqual([]);
  });

  it('run a block marked requires=COMMAND once this build has COMMAND, and the probe example now', () => {
    for (const b of BLOCKS.filter((x) => x.info)) {
      const need = /requires=(\S+)/.exec(b.info)![1]!;
      expect(codeBlocks(b.lang).includes(b.body), `${b.file}: requires=${need}`).toBe(hasCommand(need));
    }
    expect(codeBlocks('sh').some((b) => /^acp-inspect probe agent /m.test(b))).toBe(true);
  });
});

describe('the fixture example', () => {
  const t = tempDir('acp-inspect-readme-');
  afterAll(() => t.cleanup());
  const project = t.dir;
  const block = codeBlocks('ts').find((b) => b.startsWith('// test/session.test.ts'));

  beforeAll(() => {
    // A new project that installed acp-inspect, the SDK and vitest (linked to this checkout's).
    mkdirSync(join(project, 'node_modules', '@agentclientprotocol'), { recursive: true });
    symlinkSync(ROOT, join(project, 'node_modules', 'acp-inspect'));
    symlinkSync(join(ROOT, 'node_modules', '@agentclientprotocol', 'sdk'), join(project, 'node_modules', '@agentclientprotocol', 'sdk'));
    symlinkSync(join(ROOT, 'node_modules', 'vitest'), join(project, 'node_modules', 'vitest'));
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'my-client', type: 'module', private: true }));
    mkdirSync(join(project, 'test', 'fixtures'), { recursive: true });
    copyFileSync(SAMPLE, join(project, 'test', 'fixtures', 'session.jsonl'));
  });

  const vitest = (file: string) => run(process.execPath, [join(ROOT, 'node_modules', 'vitest', 'vitest.mjs'), 'run', file], { cwd: project, env: { ...process.env, CI: 'true', ACP_INSPECT_RECORD: '' }, timeoutMs: 60_000 });

  it('is a complete test file that passes as written', async () => {
    expect(block, 'the docs have a ```ts block starting with // test/session.test.ts').toBeDefined();
    mkdirSync(join(project, 'test'), { recursive: true });
    writeFileSync(join(project, 'test', 'session.test.ts'), block!);
    const r = await vitest('test/session.test.ts');
    expect(r.stdout.toString() + r.stderr).toMatch(/1 passed/);
    expect(r.code).toBe(0);
  });

  it('passes on its first run, when the fixture is missing and is recorded from the real agent', async () => {
    // A new project of its own: no fixture yet, and `agent.js` (the command the example names) is a real agent.
    const fresh = join(t.dir, 'first-run');
    mkdirSync(join(fresh, 'test'), { recursive: true });
    symlinkSync(join(project, 'node_modules'), join(fresh, 'node_modules'));
    writeFileSync(join(fresh, 'package.json'), JSON.stringify({ name: 'my-client', type: 'module', private: true }));
    writeFileSync(join(fresh, 'agent.js'), `import ${JSON.stringify(EXAMPLE_AGENT)};\n`);
    writeFileSync(join(fresh, 'test', 'session.test.ts'), block!);
    const r = await run(process.execPath, [join(ROOT, 'node_modules', 'vitest', 'vitest.mjs'), 'run', 'test/session.test.ts'],
      { cwd: fresh, env: { ...process.env, CI: 'true', ACP_INSPECT_RECORD: '' }, timeoutMs: 90_000 });
    expect(r.stdout.toString() + r.stderr).toMatch(/1 passed/);
    expect(r.code).toBe(0);
    // It recorded the fixture, which the next run replays.
    expect(readFileSync(join(fresh, 'test', 'fixtures', 'session.jsonl'), 'utf8')).toMatch(/session\/prompt/);
  });

  it('fails when the client sends a changed prompt (strict by default)', async () => {
    expect(block).toContain("session.prompt('Hello, agent!')");
    writeFileSync(join(project, 'test', 'changed.test.ts'), block!.replace("session.prompt('Hello, agent!')", "session.prompt('Hello, changed agent!')"));
    const r = await vitest('test/changed.test.ts');
    expect(r.code).not.toBe(0);
    expect(r.stdout.toString() + r.stderr).toMatch(/1 failed/);
    expect(r.stdout.toString() + r.stderr).toMatch(/different params/);
  });
});

describe('the editor configurations', () => {
  // Each configuration once (the README repeats the command line page's Zed example).
  const configs = [...new Set(codeBlocks('json'))].map((b) => JSON.parse(b) as Record<string, Record<string, { command: string; args: string[] }>>);

  it('are valid JSON, and each tap configuration records a real session', async () => {
    const servers = configs.flatMap((c) => Object.values(c.agent_servers ?? {}));
    for (const server of servers) expect(server.command).toBe('acp-inspect');
    // An agent server without `--` is not a tap but a command of ours an editor starts (probe client).
    for (const server of servers.filter((x) => !x.args.includes('--'))) expect(hasCommand(server.args[0]!), server.args.join(' ')).toBe(true);
    const taps = servers.filter((x) => x.args.includes('--'));
    expect(taps.length).toBeGreaterThanOrEqual(2);
    // A remote agent's configuration (a URL after `--`) among them.
    expect(taps.some((x) => /^(https?|wss?):\/\//.test(x.args.at(-1)!))).toBe(true);
    for (const server of taps) {
      const sep = server.args.indexOf('--');
      const t = tempDir();
      const remote = /^(https?|wss?):\/\//.exec(server.args[sep + 1]!);
      // A remote agent: the SDK's own server hosting the test agent, with the token the header names.
      const agent = remote ? await startRemoteAgent(t.dir, ['--auth', 'readme-token']) : null;
      try {
        const db = join(t.dir, 'r.sqlite');
        // The agent after `--` is a placeholder path: put the SDK's example agent there (or the URL of the remote one).
        const target = agent ? [remote![1]!.startsWith('ws') ? agent.url.replace(/^http/, 'ws') : agent.url] : [process.execPath, EXAMPLE_AGENT];
        const args = [...server.args.slice(0, sep), '--db', db, '--', ...target];
        const r = await runExampleClient([process.execPath, BIN, ...args].map(sh).join(' '), { env: { AGENT_TOKEN: 'readme-token' } });
        expect(r.code, r.stderr).toBe(0);
        expect(r.stdout.toString(), r.stderr).toContain('Agent completed with: end_turn');
        const list = await cli(['list', '--json', '--db', db]);
        const recs = JSON.parse(list.stdout.toString()) as { frames: number; status: string; name?: string }[];
        expect(recs).toHaveLength(1);
        expect(recs[0]!.status).toBe('complete');
        expect(recs[0]!.frames).toBeGreaterThan(5);
        const name = server.args[server.args.indexOf('--name') + 1];
        if (server.args.includes('--name')) expect(recs[0]!.name).toBe(name);
      } finally {
        await agent?.stop();
        t.cleanup();
      }
    }
  });

  it('MCP configurations name the mcp command', () => {
    const mcp = configs.flatMap((c) => [...Object.values(c.mcpServers ?? {}), ...Object.values(c.context_servers ?? {})]);
    expect(mcp.length).toBeGreaterThanOrEqual(2);
    for (const s of mcp) expect([s.command, ...s.args]).toEqual(['acp-inspect', 'mcp']);
  });
});

describe('the shell examples', () => {
  const t = tempDir('acp-inspect-readme-sh-');
  // The collector the OpenTelemetry examples send to (as OTEL_EXPORTER_OTLP_ENDPOINT says).
  let collector: Receiver;
  afterAll(async () => {
    await collector?.close();
    t.cleanup();
  });
  const db = join(t.dir, 'readme.sqlite');
  const ids: string[] = [];
  // Each line once (the README repeats a few of the pages' examples), in the order of the pages.
  const lines = [...new Set(codeBlocks('sh').flatMap((b) => b.split('\n')).map((l) => l.replace(/\s+#.*$/, '').trim()).filter((l) => l.startsWith('acp-inspect ')))];

  beforeAll(async () => {
    collector = await startReceiver();
    // `acp-inspect` on PATH, a database with two recordings, the files the examples name.
    const bin = join(t.dir, 'bin');
    mkdirSync(bin);
    writeFileSync(join(bin, 'acp-inspect'), `#!/bin/sh\nexec ${sh(process.execPath)} ${sh(BIN)} "$@"\n`);
    chmodSync(join(bin, 'acp-inspect'), 0o755);
    copyFileSync(SAMPLE, join(t.dir, 'session.jsonl'));
    // Examples that name files of this repository (recordings/...) find them as in a clone.
    symlinkSync(join(ROOT, 'recordings'), join(t.dir, 'recordings'));
    writeFileSync(join(t.dir, 'my-agent.js'), `import ${JSON.stringify(EXAMPLE_AGENT)};\n`);
    // `my-agent` on PATH, as an installed agent would be: the SDK's example agent (it ignores --acp).
    writeFileSync(join(bin, 'my-agent'), `#!/bin/sh\nexec ${sh(process.execPath)} ${sh(EXAMPLE_AGENT)} "$@"\n`);
    chmodSync(join(bin, 'my-agent'), 0o755);
    for (const name of ['yesterday', 'today']) {
      const r = await cli(['import', SAMPLE, '--name', name, '--db', db]);
      expect(r.code, r.stderr).toBe(0);
      ids.push(r.stdout.toString().trim());
    }
  });

  /** Runs a docs line in the shell as a user would, with the database set and its ids filled in. */
  function shell(line: string, input?: string) {
    // A probe of an agent runs one scenario here (the full battery takes 20 s; the docs' pages show it whole).
    const filled = line.replace(/\b12\b/, ids[0]!).replace(/\b13\b/, ids[1]!).replace(/ probe agent (?!.*--only)/, ' probe agent --only initialize ');
    return run('/bin/sh', ['-c', filled], {
      cwd: t.dir,
      input,
      env: { ...process.env, PATH: `${join(t.dir, 'bin')}:${process.env.PATH}`, ACP_INSPECT_DB: db, NO_COLOR: '1', BROWSER: 'true', OTEL_EXPORTER_OTLP_ENDPOINT: collector.url },
      timeoutMs: 30_000,
    });
  }

  it('finds the examples', () => {
    expect(lines.length).toBeGreaterThanOrEqual(10);
  });

  it('every command that finishes on its own runs and answers (exit 0, or 1 for findings/divergence)', async () => {
    const finishing = lines.filter((l) => !/ serve\b| console\b| --follow\b| replay --as agent\b|^acp-inspect proxy\b/.test(l));
    expect(finishing.length).toBeGreaterThanOrEqual(7);
    for (const line of finishing) {
      const r = await shell(line);
      expect([0, 1], `${line}\n${r.stderr}`).toContain(r.code);
      expect(r.stdout.length + r.stderr.length, line).toBeGreaterThan(0);
      expect(r.stderr, line).not.toMatch(/\n\s+at .*:\d+:\d+/); // no stack trace
    }
    // The OpenTelemetry example reached the collector.
    expect(collector.spans.filter((s) => s.parentSpanId === '').map((s) => s.name)).toEqual(['acp connection']);
  });

  it('the slice example makes a fixture that the README\'s replay line serves green to a real SDK client', async () => {
    const exp = lines.find((l) => / export 12 --turn /.test(l))!;
    const serve = lines.find((l) => / replay --as agent \S+\.jsonl/.test(l))!;
    expect(exp).toBeDefined();
    expect(serve).toBeDefined();
    expect((await shell(exp)).code).toBe(0);
    const file = / -o (\S+)/.exec(exp)![1]!;
    expect(serve).toContain(file);
    const client = join(ROOT, 'test', 'replay', 'peers', 'fixture-client.mjs');
    const r = await run(process.execPath, [client, join(t.dir, file), '--', '/bin/sh', '-c', serve], {
      cwd: t.dir, env: { ...process.env, PATH: `${join(t.dir, 'bin')}:${process.env.PATH}`, ACP_INSPECT_DB: db }, timeoutMs: 30_000,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/0 unmatched; every recorded client frame was used/);
  });

  it('the notes examples leave the notes they say', async () => {
    const r = await shell('acp-inspect note list 12 --json');
    const notes = JSON.parse(r.stdout.toString()) as { seq: number; text: string }[];
    expect(notes.map((n) => [n.seq, n.text])).toEqual([[11, 'the editor lost focus while asking']]);
  });

  it('the transcript examples are transcripts: check reads them and import keeps every item', async () => {
    const blocks = codeBlocks('jsonl');
    expect(blocks.length).toBeGreaterThanOrEqual(1);
    for (const [i, body] of blocks.entries()) {
      const file = join(t.dir, `example-${i}.jsonl`);
      writeFileSync(file, body);
      const check = await cli(['check', file, '--json']);
      expect([0, 1], check.stderr).toContain(check.code);
      const imp = await cli(['import', file, '--db', join(t.dir, 'examples.sqlite')]);
      expect(imp.code, imp.stderr).toBe(0);
      const items = body.trim().split('\n').filter((l) => !/"acpInspect"|"dir":"note"/.test(l)).length;
      expect(imp.stderr).toContain(`imported ${items} items`);
    }
  });

  it('the long-running ones start and do their job', async () => {
    const proxies = lines.filter((l) => /^acp-inspect proxy\b/.test(l));
    expect(proxies.length).toBeGreaterThanOrEqual(1);
    expect(lines.some((l) => / console\b/.test(l))).toBe(true);
    // A mock remote agent (replay --listen) prints its URL as the proxy does.
    const remoteMocks = lines.filter((l) => / replay --as agent\b.* --listen\b/.test(l));
    expect(remoteMocks.length).toBeGreaterThanOrEqual(1);
    for (const line of [...lines.filter((l) => / serve\b| console\b| --follow\b/.test(l)), ...proxies, ...remoteMocks]) {
      const filled = line.replace('--open', '--open --port 0').replace(/--listen (\S+):\d+/, '--listen $1:0');
      const p = spawn('/bin/sh', ['-c', `exec ${filled}`], { cwd: t.dir, env: { ...process.env, PATH: `${join(t.dir, 'bin')}:${process.env.PATH}`, ACP_INSPECT_DB: db, NO_COLOR: '1', BROWSER: 'true' } });
      let out = '';
      p.stdout.on('data', (b: Buffer) => { out += b.toString(); });
      p.stderr.on('data', (b: Buffer) => { out += b.toString(); });
      const want = / serve\b/.test(line) ? /http:\/\/127\.0\.0\.1:\d+\/\?token=/ : / console\b/.test(line) ? /http:\/\/127\.0\.0\.1:\d+\/console\?token=/ : / proxy\b| --listen\b/.test(line) ? /http:\/\/127\.0\.0\.1:\d+\/acp\n/ : /initialize/;
      const deadline = Date.now() + 20_000;
      while (!want.test(out) && Date.now() < deadline && p.exitCode === null) await new Promise((r) => setTimeout(r, 50));
      await stopProcess(p);
      expect(out, line).toMatch(want);
    }
    const replay = lines.find((l) => / replay --as agent\b/.test(l) && !/ --listen\b/.test(l));
    expect(replay).toBeDefined();
    // The mock agent answers the recorded initialize on stdio.
    const init = '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{"fs":{"readTextFile":true,"writeTextFile":true}}}}\n';
    const r = await shell(replay!, init);
    expect(r.stdout.toString()).toMatch(/"id":0,"result":\{"protocolVersion":1/);
  });
});
