#!/usr/bin/env node
// A flooding "agent" for burst and locked-database tests. On a request `flood` with params
// `{ n, ...tag }`: n numbered notifications `x/n` of FRAME bytes each (params: the tag's fields, then
// `i` and padding), in writes of 256 KiB with a turn of the event loop between two writes (so a
// request that arrives meanwhile is answered in the middle of the flood), then the answer. Any other
// request is answered at once. FRAME is the first argument (default 1024). Exits once stdin ends and
// no flood is under way. Tests import `expectedFlood` to know the bytes to expect.
import { writeSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** One flood notification: `{"jsonrpc":"2.0","method":"x/n","params":{...tag,"i":i,"pad":"zzz…"}}\n`, frame bytes in all. */
export function floodLine(tag, i, frame) {
  const head = JSON.stringify({ jsonrpc: '2.0', method: 'x/n', params: { ...tag, i, pad: '' } });
  return head.replace('"pad":""', `"pad":"${'z'.repeat(frame - head.length - 1)}"`) + '\n';
}

/** The n notifications a `flood` request with this tag writes, as one string. */
export function expectedFlood(n, tag = {}, frame = 1024) {
  const parts = [];
  for (let i = 0; i < n; i++) parts.push(floodLine(tag, i, frame));
  return parts.join('');
}

function main() {
  const frame = Number(process.argv[2]) || 1024;
  const write = (s) => {
    const b = Buffer.from(s);
    let o = 0;
    while (o < b.length) {
      try {
        o += writeSync(1, b, o);
      } catch (e) {
        if (e.code !== 'EAGAIN') throw e;
      }
    }
  };
  const answer = (id) => write(JSON.stringify({ jsonrpc: '2.0', id, result: {} }) + '\n');
  let buf = '';
  let flood = null;
  function step() {
    let out = '';
    while (out.length < 256 * 1024 && flood.i < flood.n) out += floodLine(flood.tag, flood.i++, frame);
    write(out);
    if (flood.i < flood.n) return setImmediate(step);
    const id = flood.id;
    flood = null;
    answer(id);
  }
  process.stdin.on('data', (d) => {
    buf += d;
    let k;
    while ((k = buf.indexOf('\n')) !== -1) {
      const m = JSON.parse(buf.slice(0, k));
      buf = buf.slice(k + 1);
      if (m.method === 'flood') {
        const { n, ...tag } = m.params;
        flood = { n, tag, i: 0, id: m.id };
        setImmediate(step);
      } else answer(m.id);
    }
  });
  process.stdin.on('end', () => {
    if (!flood) process.exit(0);
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) main();
