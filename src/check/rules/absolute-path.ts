import { defineRule } from '../rule.js';
import { M } from '../../spec/methods.js';
import { isAbsolutePath, obj, quote } from './util.js';

/**
 * Reading: only protocol fields are checked (params `path`/`cwd`/`additionalDirectories`, stdio MCP
 * `command`, Diff `path`, tool call location `path`, SessionInfo `cwd` and `additionalDirectories`,
 * and the UNSTABLE subagent_update's `cwd` and `additionalDirectories`, which only warn), never
 * free-form `rawInput` or `_meta`, where a `path` key belongs to some tool. These are all the fields
 * of those names in the protocol's schema.
 */
export const absolutePath = defineRule({
  id: 'absolute-path',
  severity: 'error',
  spec: '2.1',
  title: 'Relative path where an absolute path is required',
  specText: 'Fields named `path`, `cwd` and each entry of `additionalDirectories` are absolute paths. (2.8: stdio `command` is the absolute path to the executable; 2.7: Diff `path` is absolute.)',
  methods: [M.sessionNew, M.sessionLoad, M.sessionResume, M.sessionFork, M.sessionList, M.readTextFile, M.writeTextFile, M.terminalCreate, M.update, M.requestPermission],
  kinds: ['request', 'notification', 'result'],
  check(c) {
    const bad = (where: string, v: unknown, spec?: string, unstable?: boolean) => {
      if (typeof v === 'string' && !isAbsolutePath(v)) {
        c.report(`${c.method} ${where} is ${quote(v)}, not an absolute path${unstable ? ' (UNSTABLE update: a warning)' : ''}`, spec || unstable ? { ...(spec ? { spec } : {}), ...(unstable ? { severity: 'warning' as const } : {}) } : undefined);
      }
    };
    const dirs = (where: string, v: unknown, unstable?: boolean) => {
      if (Array.isArray(v)) v.slice(0, 1000).forEach((d, i) => bad(`${where}[${i}]`, d, undefined, unstable));
    };
    const p = c.params;
    if (c.frame.kind === 'result') {
      if (c.method !== M.sessionList) return;
      const sessions = obj(c.msg?.result)?.sessions;
      if (Array.isArray(sessions)) {
        sessions.slice(0, 1000).forEach((s, i) => {
          bad(`result.sessions[${i}].cwd`, obj(s)?.cwd);
          dirs(`result.sessions[${i}].additionalDirectories`, obj(s)?.additionalDirectories);
        });
      }
      return;
    }
    if (!p) return;
    switch (c.method) {
      case M.readTextFile:
      case M.writeTextFile:
        bad('params.path', p.path);
        return;
      case M.terminalCreate:
      case M.sessionList:
        bad('params.cwd', p.cwd);
        return;
      case M.update: {
        const u = obj(p.update);
        if (u?.sessionUpdate === 'subagent_update') {
          bad('params.update.cwd (subagent_update)', u.cwd, undefined, true);
          dirs('params.update.additionalDirectories', u.additionalDirectories, true);
        } else toolCallPaths(u, 'params.update', bad);
        return;
      }
      case M.requestPermission:
        toolCallPaths(obj(p.toolCall), 'params.toolCall', bad);
        return;
      default: {
        bad('params.cwd', p.cwd);
        dirs('params.additionalDirectories', p.additionalDirectories);
        if (Array.isArray(p.mcpServers)) {
          p.mcpServers.slice(0, 1000).forEach((s, i) => {
            const o = obj(s);
            if (o && o.type === undefined) bad(`params.mcpServers[${i}].command (stdio)`, o.command, '2.8');
          });
        }
      }
    }
  },
});

function toolCallPaths(u: Record<string, unknown> | undefined, prefix: string, bad: (where: string, v: unknown, spec?: string) => void): void {
  if (!u) return;
  if (Array.isArray(u.content)) {
    u.content.slice(0, 1000).forEach((x, i) => {
      const o = obj(x);
      if (o?.type === 'diff') bad(`${prefix}.content[${i}].path (diff)`, o.path, '2.7');
    });
  }
  if (Array.isArray(u.locations)) u.locations.slice(0, 1000).forEach((l, i) => bad(`${prefix}.locations[${i}].path`, obj(l)?.path));
}
