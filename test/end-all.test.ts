/**
 * A suite's teardown (endAll in test/helpers.ts): every step runs, in order, even after one failed,
 * and the failure is still thrown, so a browser that would not close never keeps a server running.
 */
import { describe, expect, it } from 'vitest';
import { endAll } from './helpers.js';

describe('endAll', () => {
  it('runs every step in order and passes when none fails; an undefined step is skipped', async () => {
    const ran: string[] = [];
    await endAll(() => { ran.push('browser'); }, undefined, async () => { ran.push('server'); }, () => { ran.push('folder'); });
    expect(ran).toEqual(['browser', 'server', 'folder']);
  });

  it('runs the steps after a failed one, then throws that failure', async () => {
    const ran: string[] = [];
    const closing = new Error('the browser would not close');
    await expect(endAll(
      () => { ran.push('browser'); throw closing; },
      async () => { ran.push('server'); },
      () => { ran.push('folder'); },
    )).rejects.toBe(closing);
    expect(ran).toEqual(['browser', 'server', 'folder']);
  });

  it('names every failure when more than one step fails', async () => {
    const ran: string[] = [];
    await expect(endAll(
      async () => { ran.push('browser'); throw new Error('browser gone'); },
      () => { ran.push('server'); throw new Error('port busy'); },
      () => { ran.push('folder'); },
    )).rejects.toThrow('2 teardown steps failed: browser gone; port busy');
    expect(ran).toEqual(['browser', 'server', 'folder']);
  });
});
