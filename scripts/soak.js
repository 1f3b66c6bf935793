#!/usr/bin/env node
/**
 * Runs the test suite, or the test files named, N times in a row and reports every failure with
 * its run, file and test name, then one summary line; exits 1 if any run failed. A flaky test shows
 * up as a failure in some runs and not others.
 *
 *   npm run test:soak -- --repeat 5                      the whole suite, 5 times
 *   npm run test:soak -- --repeat 10 test/tap/eof.test.ts   one file (any vitest filter), 10 times
 *   npm run test:soak -- --repeat 10 test/tap -t 'four taps'  the tests so named in those files
 *
 * Builds once first, as `npm test` does (`--no-build` skips that). Each run is `vitest run` with its
 * JSON reporter; what fails outside a test (a file's setup or cleanup, an unhandled error, the end
 * of run check that nothing was left behind: test/leak-check.ts) is reported too.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const USAGE = 'usage: npm run test:soak -- [--repeat N] [--no-build] [-t TEST_NAME_PATTERN] [test files or filters...]';

function parseArgs(argv) {
  const o = { repeat: 5, build: true, files: [] };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--repeat' || a === '-n') {
      const n = Number(argv[++i]);
      if (!Number.isInteger(n) || n < 1) fail(`--repeat needs a whole number of runs, 1 or more, not "${argv[i] ?? ''}"; ${USAGE}`);
      o.repeat = n;
    } else if (a.startsWith('--repeat=')) {
      return parseArgs([...argv.slice(0, i), '--repeat', a.slice('--repeat='.length), ...argv.slice(i + 1)]);
    } else if (a === '--no-build') o.build = false;
    else if (a === '-t' || a === '--testNamePattern') o.files.push('-t', argv[++i] ?? '');
    else if (a === '--help' || a === '-h') {
      process.stdout.write(`${USAGE}\n`);
      process.exit(0);
    } else if (a.startsWith('-')) fail(`unknown option ${a}; ${USAGE}`);
    else o.files.push(a);
  }
  return o;
}

function fail(msg) {
  process.stderr.write(`soak: ${msg}\n`);
  process.exit(2);
}

/** Runs a command, its output to `onOut`; resolves with its exit code (a signal counts as failure). */
function exec(cmd, args, onOut) {
  return new Promise((res) => {
    const child = spawn(cmd, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, FORCE_COLOR: '0' } });
    child.stdout.on('data', (b) => onOut(b, 'stdout'));
    child.stderr.on('data', (b) => onOut(b, 'stderr'));
    child.on('close', (code, signal) => res(code ?? (signal ? 128 : 1)));
    child.on('error', (e) => { onOut(Buffer.from(`${e.message}\n`), 'stderr'); res(1); });
  });
}

/** The failures a JSON report holds: one { file, test, message } per failed test, or file that failed outside its tests. */
function failuresOf(report) {
  const out = [];
  for (const f of report.testResults ?? []) {
    const file = relative(ROOT, f.name);
    const failed = (f.assertionResults ?? []).filter((t) => t.status === 'failed');
    for (const t of failed) out.push({ file, test: t.fullName ?? t.title, message: messageOf(t.failureMessages ?? []) });
    if (failed.length === 0 && f.status === 'failed') out.push({ file, test: '(outside its tests: setup, cleanup or import)', message: firstLine(f.message ?? '') });
  }
  return out;
}

/**
 * A failed test's first line. Vitest's JSON report gives a test that timed out no message, only
 * `Error: STACK_TRACE_ERROR` and a stack: that is said as a timeout, at the test's line.
 */
function messageOf(messages) {
  const text = messages.join('\n');
  if (!text.startsWith('Error: STACK_TRACE_ERROR')) return firstLine(text);
  const at = /\((?:file:\/\/)?([^()]*\/test\/[^()]*?)\)|at (\/[^\s]*\/test\/\S+)/.exec(text);
  const where = at ? relative(ROOT, at[1] ?? at[2]) : 'its test';
  return `no message (vitest's JSON report gives a timeout so): ${where}`;
}

function firstLine(s) {
  const line = String(s).split('\n').map((l) => l.trim()).find(Boolean) ?? '';
  return line.length > 300 ? `${line.slice(0, 300)}…` : line;
}

async function main() {
  const o = parseArgs(process.argv.slice(2));
  if (o.build) {
    process.stdout.write('soak: building (npm run build)\n');
    let log = '';
    const code = await exec('npm', ['run', 'build'], (b) => { log += b; });
    if (code !== 0) {
      process.stderr.write(log);
      fail(`the build failed (exit ${code}); fix it, or run with --no-build`);
    }
  }
  const work = mkdtempSync(join(tmpdir(), 'acp-inspect-soak-'));
  const what = o.files.length ? o.files.join(' ') : 'the suite';
  const all = [];
  let failedRuns = 0;
  let tests = 0;
  try {
    for (let run = 1; run <= o.repeat; run++) {
      const out = join(work, `run-${run}.json`);
      const started = Date.now();
      let stderr = '';
      const code = await exec(process.execPath, [join(ROOT, 'node_modules', 'vitest', 'vitest.mjs'), 'run', '--reporter=json', `--outputFile=${out}`, ...o.files],
        (b, stream) => { if (stream === 'stderr') stderr += b; });
      let report = null;
      try { report = existsSync(out) ? JSON.parse(readFileSync(out, 'utf8')) : null; } catch { report = null; }
      const failures = report ? failuresOf(report) : [];
      // What failed outside any file: the end-of-run check, an unhandled error, vitest itself.
      if (code !== 0 && failures.length === 0) {
        const lines = stderr.split('\n').filter((l) => /^leak check:|Error|error/.test(l.trim())).slice(0, 10);
        if (lines.length === 0) lines.push(`vitest exited ${code}: ${firstLine(stderr.split('\n').slice(-20).join('\n')) || 'no message'}`);
        for (const l of lines) failures.push({ file: '(the run)', test: '', message: firstLine(l) });
      } else {
        for (const l of stderr.split('\n').filter((x) => x.startsWith('leak check:'))) failures.push({ file: '(the run)', test: '', message: l });
      }
      const n = (report?.numPassedTests ?? 0) + (report?.numFailedTests ?? 0);
      tests += n;
      if (failures.length) failedRuns++;
      for (const f of failures) all.push({ run, ...f });
      const secs = ((Date.now() - started) / 1000).toFixed(0);
      process.stdout.write(`soak: run ${run}/${o.repeat}: ${n} tests, ${failures.length === 0 ? 'no failures' : `${failures.length} failure${failures.length === 1 ? '' : 's'}`} (${secs} s)\n`);
      for (const f of failures) process.stdout.write(`  FAIL ${f.file}${f.test ? ` > ${f.test}` : ''}: ${f.message}\n`);
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  const distinct = new Set(all.map((f) => `${f.file} > ${f.test}`)).size;
  process.stdout.write(`soak: ${o.repeat} run${o.repeat === 1 ? '' : 's'} of ${what}, ${tests} tests in all: `
    + (all.length === 0 ? '0 failures\n' : `${all.length} failure${all.length === 1 ? '' : 's'} in ${failedRuns} run${failedRuns === 1 ? '' : 's'} (${distinct} distinct)\n`));
  process.exit(all.length === 0 ? 0 : 1);
}

await main();
