#!/usr/bin/env node
// Anonymizes an exported recording: drops the byte-logging relay from the spawn command, maps the
// peers' install folders to /home/dev/.local/lib/node_modules, and fails on any leftover machine path.
// usage: anonymize.mjs IN.jsonl OUT.jsonl NAME PEERS_DIR   (PEERS_DIR: where the peers were installed, one folder each)
import { readFileSync, writeFileSync } from 'node:fs';

const [inp, out, name, peers] = process.argv.slice(2);
const esc = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const installed = new RegExp(`${esc(peers.replace(/\/$/, ''))}/[^/]+/node_modules/`, 'g');
const mapStr = (s) => s
  .replace(installed, '/home/dev/.local/lib/node_modules/')
  .replace(/\/tmp\/claude-\d+\//g, '/home/dev/.cache/claude/');
const deep = (v) => typeof v === 'string' ? mapStr(v) : Array.isArray(v) ? v.map(deep) : v && typeof v === 'object' ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, deep(x)])) : v;
const stripRelay = (argv) => {
  const i = argv.findIndex((a) => a.endsWith('/bytetee.mjs'));
  return i >= 0 ? argv.slice(i + 3) : argv; // [node, bytetee.mjs, DIR, --, ...agent]
};
const lines = readFileSync(inp, 'utf8').trimEnd().split('\n').map((l) => JSON.parse(l));
const outLines = lines.map((o) => {
  if (o.acpInspect) {
    const h = { ...o, name, command: stripRelay(o.command ?? []) };
    delete h.pid;
    return JSON.stringify(deep(h));
  }
  if (o.dir === 'event' && o.type === 'spawn') {
    const argv = stripRelay([o.data.command, ...o.data.args]);
    return JSON.stringify(deep({ ...o, data: { ...o.data, command: argv[0], args: argv.slice(1), pid: 4242 } }));
  }
  return JSON.stringify(deep(o));
});
const text = outLines.join('\n') + '\n';
for (const bad of [peers, '/tmp/', '/work/', '/root', 'bytetee', 'sk-test']) {
  if (text.includes(bad)) { console.error(`anon: ${out} still contains ${bad}`); process.exitCode = 1; }
}
writeFileSync(out, text);
