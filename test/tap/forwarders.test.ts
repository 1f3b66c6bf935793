/**
 * The tap has two forwarders: the native one (native/forward.c, built on install) and the JavaScript
 * one it falls back to where that cannot be built. The other tap tests run with whichever loads
 * (the native one, wherever the test suite runs: this file checks that it does); here the tap's
 * end-to-end, end-of-stream, fault, signal and overflow tests run again on the JavaScript forwarder.
 */
import { describe, expect, it } from 'vitest';
import { cli } from '../helpers.js';

describe('the native forwarder', () => {
  it('is built and loads here, and doctor says so', async () => {
    const r = await cli(['doctor', '--json'], { env: { ACP_INSPECT_NATIVE: undefined } });
    const checks = JSON.parse(r.stdout.toString()) as { level: string; what: string }[];
    expect(checks.find((c) => c.what.startsWith('native forwarder'))).toMatchObject({ level: 'ok', what: expect.stringContaining('loads') });
  });

  it('can be turned off, and doctor says so', async () => {
    const r = await cli(['doctor', '--json'], { env: { ACP_INSPECT_NATIVE: '0' } });
    const checks = JSON.parse(r.stdout.toString()) as { level: string; what: string }[];
    expect(checks.find((c) => c.what.startsWith('native forwarder'))?.what).toContain('off');
  });
});

describe('on the JavaScript forwarder (ACP_INSPECT_NATIVE=0)', async () => {
  process.env.ACP_INSPECT_NATIVE = '0';
  await import('./tap.e2e.test.js');
  await import('./eof.test.js');
  await import('../reliability/agent-faults.test.js');
  await import('../reliability/signals.test.js');
  await import('../reliability/overflow.test.js');
});
