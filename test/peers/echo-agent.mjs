#!/usr/bin/env node
// A byte-exact echo "agent" for framing tests: copies stdin to stdout unchanged, writes a line to
// stderr, and exits with $ECHO_EXIT (default 0) when stdin closes.
process.stderr.write('echo-agent ready\n');
process.stdin.on('data', (c) => process.stdout.write(c));
process.stdin.on('end', () => process.stdout.end(() => process.exit(Number(process.env.ECHO_EXIT ?? 0))));
