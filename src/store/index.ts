/** store/: recordings in SQLite. Synchronous; the tap uses it only from its recorder worker. */
export * from './store.js';
export * from './errors.js';
export * from './paths.js';
export { MIGRATIONS } from './schema.js';
