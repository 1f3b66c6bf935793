/**
 * An upload (POST /api/import) written to a temporary file beside the database as it arrives, so the
 * server never holds it: the route then reads that file the way `acp-inspect import FILE` reads one.
 * Past the size limit it stops reading and removes what it wrote.
 */
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { join } from 'node:path';

export class UploadTooBig extends Error {}

/** Writes `body` to a new file in `dir`; its path. Throws UploadTooBig past `maxBytes` (and leaves no file). */
export async function spoolUpload(body: AsyncIterable<Uint8Array> | ReadableStream<Uint8Array> | null, dir: string, maxBytes: number): Promise<string> {
  const path = join(dir, `.acp-inspect-upload-${process.pid}-${randomBytes(6).toString('hex')}.tmp`);
  const fh = await open(path, 'wx', 0o600);
  try {
    let bytes = 0;
    if (body) {
      for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
        bytes += chunk.byteLength;
        if (bytes > maxBytes) throw new UploadTooBig();
        await fh.write(chunk);
      }
    }
    await fh.close();
    return path;
  } catch (e) {
    await fh.close().catch(() => { /* closed already */ });
    rmSync(path, { force: true });
    throw e;
  }
}
