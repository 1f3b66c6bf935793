#!/bin/bash
# Records one real-peer session through the tap and checks that the tap was invisible.
#   record.sh NAME OUTDIR [client.mjs options] -- agent cmd...                 (our 2.4.0-SDK client)
#   EXAMPLE_CLIENT=client.js INPUT='1\n' record.sh NAME OUTDIR -- agent cmd... (an SDK example client; it
#       spawns `npx tsx agent.ts`, answered by test/peers/bin/npx, and reads its permission choice on stdin)
# The agent runs behind bytetee.mjs inside the tap; the client side is logged by client.mjs (or by a second
# bytetee.mjs). Prints whether the bytes each side wrote are the bytes the other side read and whether
# the recorded frames equal the wire, then exports OUTDIR/NAME/rec.jsonl. Run as a non-root user (the
# claude agents refuse root) with HOME and the working folder set as the recording should show them.
set -u
here=$(cd "$(dirname "$0")" && pwd); root=$(cd "$here/../../.." && pwd)
NAME=$1; OUT=$2/$1; shift 2
rm -rf "$OUT"; mkdir -p "$OUT/outer" "$OUT/inner"
DB=$OUT/db.sqlite
TAP=(node "$root/bin/acp-inspect.js" --db "$DB" --name "$NAME" -- node "$here/bytetee.mjs" "$OUT/inner" --)
if [ -n "${EXAMPLE_CLIENT:-}" ]; then
  [ "$1" = "--" ] && shift
  q=""; for a in "${TAP[@]}" "$@"; do q="$q '$a'"; done
  printf "${INPUT:-1\\n}" | PATH="$root/test/peers/bin:$PATH" ACP_TEST_AGENT="node '$here/bytetee.mjs' '$OUT/outer' -- $q" \
    node "$EXAMPLE_CLIENT" > "$OUT/client-stdout.txt" 2> "$OUT/stderr.txt"
  SENT=$OUT/outer/agent-in.bin; GOT=$OUT/outer/agent-out.bin
else
  i=0; for a in "$@"; do [ "$a" = "--" ] && break; i=$((i+1)); done
  node "$here/client.mjs" "$OUT/outer" "${@:1:$i}" -- "${TAP[@]}" "${@:$((i+2))}" 2> "$OUT/stderr.txt"
  SENT=$OUT/outer/client-out.bin; GOT=$OUT/outer/client-in.bin
fi
sleep 1 # an example client may exit before the tap has finished the recording
cmp "$SENT" "$OUT/inner/agent-in.bin" && echo "c2a: client wrote = agent read ($(stat -c%s "$SENT") B)"
cmp "$OUT/inner/agent-out.bin" "$GOT" && echo "a2c: agent wrote = client read ($(stat -c%s "$GOT") B)"
node "$root/bin/acp-inspect.js" export latest --db "$DB" -o "$OUT/rec.jsonl" >/dev/null # redacted: env values, headers, tokens
node "$root/bin/acp-inspect.js" export latest --no-redact --db "$DB" -o "$OUT/rec-raw.jsonl" >/dev/null
node -e '
const fs = require("fs"); const [d] = process.argv.slice(1);
const items = fs.readFileSync(d + "/rec-raw.jsonl", "utf8").trim().split("\n").map((l) => JSON.parse(l)).filter((x) => !x.acpInspect);
for (const [dir, f] of [["c2a", "inner/agent-in.bin"], ["a2c", "inner/agent-out.bin"]]) {
  const wire = fs.readFileSync(d + "/" + f), rec = Buffer.from(items.filter((x) => x.dir === dir).map((x) => x.raw + "\n").join(""));
  console.log(`${dir}: recorded frames = wire bytes: ${wire.equals(rec)}`);
}' "$OUT"
