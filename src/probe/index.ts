/**
 * probe/: conformance probes. A probe plays one end of ACP against a live peer, runs scenarios
 * (data: what to send, what passes, which spec section), keeps each scenario's exchange as an
 * ordinary recording, grades it by the scenario's own expectation and by the full checker, and
 * reports a verdict. It does not define protocol rules (that is the checker) or record a session
 * between two other peers (that is the tap).
 *
 * The shared core, for every probe:
 * - report.ts: the report contract (`--json`, `--report`), verdict and counts; format.ts: the terminal
 *   table by tier; html.ts: the offline HTML report.
 * - connection.ts: ProbeConnection, one end of the exchange, transport-free: send/request/notify
 *   (a `provoke` mark on deliberate provocations), answer the peer's requests, every line kept as items.
 * - record.ts: a scenario's items → a recording in the store, checked; findings split between the
 *   target and the probe (provoked frames and the rule ids a scenario declares in `provokes`).
 * - probe-run.ts: ProbeRun, the run at the edge: the store (a probe_runs row holding the report, which
 *   the UI shows as a scorecard at `?probe=ID`, and one recording per scenario named
 *   "probe <kind> #<run>: <scenario>") and the `--json`/`--report`/`--html` outputs.
 *
 * How a second probe plugs in (the client probe, `probe client`): it is the agent end, so it makes a
 * `new ProbeConnection({ side: 'agent', write: line => stdout.write(line + '\n'), timeoutMs })` and
 * feeds it the client's stdin lines (`conn.receive(line)`); it keeps its scenarios as data beside
 * agent/scenarios.ts (id, title, tier, spec, provokes, run); for each scenario it calls
 * `run.record(id, { items, provoked, provokes, command, cwd, startedAt })` with the items of that
 * scenario (ProbeConnection.items, or a slice of them renumbered from 1, since one client connection
 * carries the whole battery), builds ScenarioResults, and ends with `run.finish(target, results)`
 * and `run.write(report, outputs)`. It registers as a subcommand of `probe` in
 * src/cli/commands/probe.ts next to `agent`.
 */
export * from './report.js';
export { formatProbeReport } from './format.js';
export { ProbeConnection, updateKind, errorCode, describeReply, type Reply, type IncomingRequest, type SendOptions } from './connection.js';
export { attributeFindings, recordScenario, scenarioRecordingName, type ScenarioExchange, type RecordedScenario } from './record.js';
export { ProbeRun, checkOutputs, type ProbeOutputs } from './probe-run.js';
export { probeReportHtml } from './html.js';
