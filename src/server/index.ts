/**
 * server/: the Hono app over the store and the live bus, and the HTTP server that serves it on the
 * loopback interface. The UI (ui/) is a separate Preact app built into dist/ui and served from memory.
 */
export { createApp, type AppOptions, type InspectorApp } from './app.js';
export { startServer, type StartOptions, type RunningServer } from './start.js';
export { compileFilter, FilterError } from './filter.js';
export type * from '../view/contract.js';
