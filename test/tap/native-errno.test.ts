/** The native forwarder records a failed write with the errno's own name, as Node's error codes spell it. */
import { describe, expect, it } from 'vitest';
import { createRequire } from 'node:module';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { constants } from 'node:os';
import { ROOT } from '../helpers.js';
import type { NativeForwarder } from '../../src/tap/native.js';

const ADDON = join(ROOT, 'native', 'build', 'Release', 'acp_forward.node');

describe.skipIf(!existsSync(ADDON))('native errno names', () => {
  it('names every errno a write may fail with, and an unknown one by its number (never EIO for all)', () => {
    const fwd = createRequire(import.meta.url)(ADDON) as NativeForwarder;
    const e = constants.errno as Record<string, number>;
    for (const name of ['EPIPE', 'ECONNRESET', 'EBADF', 'EIO', 'ENOSPC', 'EDQUOT', 'EFBIG', 'EINVAL', 'EAGAIN', 'EROFS', 'ENXIO', 'EPERM', 'ENOBUFS']) {
      expect(fwd.errnoCode(e[name]!), name).toBe(name);
    }
    expect(fwd.errnoCode(9999)).toBe('E9999');
  });
});
