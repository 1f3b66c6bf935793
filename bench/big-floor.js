#!/usr/bin/env node
/**
 * The floors of the big-frame case (bench/big-recording.js): reading the data once, done as plainly
 * as Node and SQLite can, each run as its own process like the commands it is compared with.
 *
 *   node bench/big-floor.js scan DB ID      one SQL scan of the recording's rows, in seq order, each
 *                                           row's columns a transcript line is made of read into JS
 *   node bench/big-floor.js write DB ID OUT the same scan, each row's raw text written to OUT as a line
 *                                           (no escaping, 1 MiB writes): what an export cannot go below
 *   node bench/big-floor.js read FILE       the transcript read in 1 MiB reads, split into lines and
 *                                           each line parsed by JSON.parse
 *   node bench/big-floor.js insert DB ID    SQLite storing the same rows into a new database (made as
 *                                           the store makes one) in one transaction, as an import does:
 *                                           INSERT … SELECT from the database attached, no JavaScript per row
 *
 * Prints what it read (rows, bytes) so that a floor that read nothing shows.
 */
import { closeSync, openSync, readSync, rmSync, writeSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createRequire } from 'node:module';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const [mode, path, idArg] = process.argv.slice(2);
const id = Number(idArg ?? 1);

if (mode === 'scan') {
  const Database = createRequire(join(ROOT, 'package.json'))('better-sqlite3');
  const db = new Database(path, { readonly: true });
  const st = db.prepare('SELECT seq, t, dir, raw, raw_bytes, truncated FROM items WHERE recording_id = ? ORDER BY seq').raw(true);
  let rows = 0;
  let chars = 0;
  for (const r of st.iterate(id)) {
    rows++;
    chars += r[3].length;
  }
  db.close();
  console.log(`${rows} rows, ${chars} characters of raw`);
} else if (mode === 'write') {
  const Database = createRequire(join(ROOT, 'package.json'))('better-sqlite3');
  const db = new Database(path, { readonly: true });
  const st = db.prepare('SELECT seq, t, dir, raw FROM items WHERE recording_id = ? ORDER BY seq').raw(true);
  const fd = openSync(process.argv[5], 'w');
  const buf = Buffer.allocUnsafe(1 << 20);
  let at = 0;
  let bytes = 0;
  for (const r of st.iterate(id)) {
    if (at + r[3].length * 3 + 1 > buf.length) {
      writeSync(fd, buf, 0, at);
      bytes += at;
      at = 0;
    }
    at += buf.write(r[3], at, 'utf8');
    buf[at++] = 10;
  }
  writeSync(fd, buf, 0, at);
  closeSync(fd);
  db.close();
  console.log(`${bytes + at} bytes written`);
} else if (mode === 'read') {
  const fd = openSync(path, 'r');
  const buf = Buffer.allocUnsafe(2 << 20);
  let have = 0;
  let lines = 0;
  for (;;) {
    const n = readSync(fd, buf, have, 1 << 20, null);
    const end = have + n;
    const cut = n > 0 ? buf.lastIndexOf(10, end - 1) + 1 : end;
    const text = buf.toString('utf8', 0, cut);
    for (let s = 0; s < text.length;) {
      let e = text.indexOf('\n', s);
      if (e < 0) e = text.length;
      if (e > s) {
        JSON.parse(text.slice(s, e));
        lines++;
      }
      s = e + 1;
    }
    buf.copy(buf, 0, cut, end);
    have = end - cut;
    if (n === 0) break;
  }
  closeSync(fd);
  console.log(`${lines} lines parsed`);
} else if (mode === 'insert') {
  const { Store } = await import(pathToFileURL(join(ROOT, 'dist', 'src', 'store', 'store.js')).href);
  const file = join(dirname(path), 'floor.db');
  for (const x of ['', '-wal', '-shm']) rmSync(file + x, { force: true });
  const store = Store.open(file);
  try {
    const db = store.db;
    db.prepare('ATTACH ? AS src').run(path);
    db.transaction(() => {
      db.prepare('INSERT INTO main.recordings SELECT * FROM src.recordings WHERE id = ?').run(id);
      const r = db.prepare('INSERT INTO main.items SELECT * FROM src.items WHERE recording_id = ? ORDER BY seq').run(id);
      console.log(`${r.changes} rows stored`);
    })();
    db.prepare('DETACH src').run();
  } finally {
    store.close(); // the checkpoint into the database file is part of storing
    for (const x of ['', '-wal', '-shm']) rmSync(file + x, { force: true });
  }
} else {
  process.stderr.write('usage: node bench/big-floor.js scan DB ID | write DB ID OUT | read FILE | insert DB ID\n');
  process.exit(2);
}
