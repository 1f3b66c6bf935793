import type { Command } from 'commander';
import { DB_OPTION, parseCount } from '../options.js';
import { CliError } from '../../errors.js';

/** Options every probe takes. */
interface ProbeCliOptions { db?: string; json?: boolean; report?: string; html?: string; only?: string; timeout?: number }

/** Splits `--only a,b` into ids. */
export function onlyIds(only: string | undefined): string[] | undefined {
  if (only === undefined) return undefined;
  const ids = only.split(',').map((s) => s.trim()).filter(Boolean);
  if (!ids.length) throw new CliError('--only needs scenario ids, e.g. --only initialize,cancel-mid-turn', 2);
  return ids;
}

export function registerProbe(program: Command): void {
  const probe = program
    .command('probe')
    .description('drive a peer through the protocol\'s risky paths and grade it (exit 0 conformant, 1 not conformant, 2 could not run)');

  probe
    .command('agent')
    .description('probe an agent: each scenario kept as a recording and checked; those that need no fresh agent process share one')
    .argument('[command...]', 'the agent command and its arguments (after --)')
    .option(...DB_OPTION)
    .option('--json', 'print the report as JSON on stdout')
    .option('--report <file>', 'write the JSON report to a file')
    .option('--html <file>', 'write a self-contained HTML report (opens offline)')
    .option('--only <ids>', 'run only these scenarios (comma-separated ids; see --list)')
    .option('--timeout <ms>', 'how long to wait for each answer of the agent (default 15000)', parseCount('--timeout'))
    .option('--cwd <dir>', 'the session folder given to the agent (default: a new empty temporary folder)')
    .option('--auth <methodId>', 'authenticate with this advertised method before sessions')
    .option('--parallel <n>', 'scenarios run at once (default 6; 1 for agents that share state on disk); the shared ones run one after another on one process', parseCount('--parallel'))
    .option('--baseline <file>', 'known failures (written by --write-baseline): exit 0 when every failure is one of them; stale entries are reported')
    .option('--write-baseline <file>', 'write the run\'s failures as a baseline file')
    .option('--list', 'list the scenarios (id, tier, spec section, title) and exit')
    .addHelpText('after', '\nExample:  acp-inspect probe agent --html probe.html -- npx my-agent --acp\n' +
      'Exit status: 0 conformant, 1 not conformant (a required or capability scenario failed, or a required ambient finding; with --baseline, one it does not list), 2 could not run.')
    .action(async (command: string[], opts: ProbeCliOptions & { cwd?: string; auth?: string; parallel?: number; list?: boolean; baseline?: string; writeBaseline?: string }) => {
      const { AGENT_SCENARIOS, probeAgent } = await import('../../probe/agent/run.js');
      if (opts.list) {
        for (const s of AGENT_SCENARIOS) process.stdout.write(`${s.id.padEnd(28)} ${s.tier.padEnd(10)} ${s.spec.padEnd(14)} ${s.title}\n`);
        return;
      }
      const { formatProbeReport } = await import('../../probe/format.js');
      const only = onlyIds(opts.only);
      const { report, text } = await probeAgent({
        command, db: opts.db, only, timeoutMs: opts.timeout, cwd: opts.cwd, auth: opts.auth, parallel: opts.parallel, baseline: opts.baseline, writeBaseline: opts.writeBaseline,
        outputs: { json: opts.json, report: opts.report, html: opts.html },
        // Progress on a terminal only: a run against a real agent takes minutes.
        onScenario: process.stderr.isTTY ? (r, done, total) => process.stderr.write(`probe agent: ${done}/${total} ${r.id} ${r.status}${r.durationMs !== undefined ? ` (${(r.durationMs / 1000).toFixed(1)} s)` : ''}\n`) : undefined,
      });
      const { exitCodeOf } = await import('../../probe/report.js');
      process.exitCode = exitCodeOf(report);
      process.stdout.write(text ?? formatProbeReport(report, { width: process.stdout.columns }));
    });

  probe
    .command('agents')
    .description('probe several agents (a config lists them) and write one matrix: a column per agent, a row per scenario')
    .requiredOption('--config <file>', 'the agents: {"agents":[{"id":"my-agent","command":["npx","my-agent"],"env":{},"cwd":".","auth":"METHOD_ID"}]}')
    .option(...DB_OPTION)
    .option('--json', 'print the matrix as JSON on stdout')
    .option('--html <file>', 'write the matrix as a self-contained page, and each agent\'s report beside it (FILE-ID.html)')
    .option('--timeout <ms>', 'how long to wait for each answer of an agent (default 15000)', parseCount('--timeout'))
    .option('--parallel <n>', 'scenarios run at once for each agent (default 6)', parseCount('--parallel'))
    .addHelpText('after', '\nExit status: 0 every agent conformant, 1 one is not, 2 one could not be probed (its column says why) or the config is wrong.')
    .action(async (opts: { config: string; db?: string; json?: boolean; html?: string; timeout?: number; parallel?: number }) => {
      const { probeAgents, matrixExitCode } = await import('../../probe/agents.js');
      const { matrix, text } = await probeAgents({
        config: opts.config, db: opts.db, json: opts.json, html: opts.html, timeoutMs: opts.timeout, parallel: opts.parallel,
        onAgent: process.stderr.isTTY ? (c) => process.stderr.write(`probe agents: ${c.id} ${c.couldNotRun ? `could not run: ${c.couldNotRun}` : c.verdict}\n`) : undefined,
      });
      process.exitCode = matrixExitCode(matrix);
      process.stdout.write(text);
    });

  probe
    .command('client')
    .description('probe an editor: run this as the agent your client launches, send one message, get a verdict')
    .option(...DB_OPTION)
    .option('--report <file>', 'write the JSON report to a file when a battery run ends')
    .option('--html <file>', 'write a self-contained HTML report (opens offline)')
    .option('--only <ids>', 'run only these scenarios or groups (comma-separated; see --list)')
    .option('--timeout <ms>', 'how long to wait for each answer of the client (default 10000)', parseCount('--timeout'))
    .option('--list', 'list the scenarios (id, tier, spec section, title) and exit')
    .addHelpText('after', '\nAn editor launches it in place of an agent; stdin and stdout are the ACP connection. Zed:\n' +
      '  { "agent_servers": { "ACP probe": { "command": "acp-inspect", "args": ["probe", "client", "--report", "/tmp/probe.json"] } } }\n' +
      'In the chat: any message runs the battery; "/probe fs" (a group or scenario ids) runs part of it; "/probe help" lists them.')
    .action(async (opts: Omit<ProbeCliOptions, 'json'> & { list?: boolean }) => {
      const { CLIENT_BATTERY, selectScenarios } = await import('../../probe/client/battery.js');
      if (opts.list) {
        for (const s of CLIENT_BATTERY) process.stdout.write(`${s.id.padEnd(28)} ${s.tier.padEnd(10)} ${s.spec.padEnd(11)} ${s.group.padEnd(10)} ${s.title}\n`);
        return;
      }
      const only = onlyIds(opts.only);
      const unknown = only ? selectScenarios(only).unknown : [];
      if (unknown.length) throw new CliError(`--only: no scenario or group ${unknown.map((u) => `"${u}"`).join(', ')}; see acp-inspect probe client --list`, 2);
      const { runProbeClient } = await import('../../probe/client/run.js');
      await runProbeClient({ db: opts.db, report: opts.report, html: opts.html, only, timeoutMs: opts.timeout });
    });
}
