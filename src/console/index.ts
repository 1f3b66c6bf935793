/**
 * console/: the browser as one more ACP client of a tapped agent (`acp-inspect console`). The
 * session starts the agent command from the command line behind the tap, writes what the page asks
 * to its stdin and does the client's duties; the routes let the page drive it behind the server's
 * guard; the registry lets `serve` list running consoles. It never records by itself: the tap does.
 */
export { ConsoleSession, ConsoleError, type ConsoleOptions, type ConsoleAnswer } from './session.js';
export { registerConsoleRoutes } from './routes.js';
export { listConsoles } from './registry.js';
export type * from './contract.js';
