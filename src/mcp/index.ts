/**
 * mcp/: a read-only Model Context Protocol server over the recordings (`acp-inspect mcp`), for AI
 * coding agents debugging ACP sessions. It is one more view over the store and the checker's model,
 * through the read models the UI uses; it never writes the database or starts a process.
 */
export { createMcpServer, runMcpServer, INSTRUCTIONS } from './server.js';
export { McpContext, ToolError, type McpOptions } from './context.js';
export { TOOLS, type ToolDef, type ToolAnswer } from './tools.js';
