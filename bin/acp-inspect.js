#!/usr/bin/env node
// CommonJS (bin/package.json): Node starts a CommonJS entry without its ES module loader, which
// would cost every tap's start-up about 10 ms. The command line is loaded bundled with the tap's
// start-up path as one CommonJS file (scripts/bundle-tap.js); without it (a build that made no
// bundles), as the ES modules tsc compiled.
'use strict';
const argv = process.argv.slice(2);
let cli = null;
try {
  cli = require('../dist/src/cli/main.bundle.cjs');
} catch (e) {
  if (e.code !== 'MODULE_NOT_FOUND') throw e;
}
if (cli) cli.main(argv);
else import('../dist/src/cli/main.js').then((m) => m.main(argv));
