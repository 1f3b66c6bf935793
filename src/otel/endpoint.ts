/**
 * Where spans go and how: the OTLP/HTTP endpoint and encoding from `--otlp [URL]` and the standard
 * environment variables. Small and dependency-free, so the tap can check its options before it
 * loads any OpenTelemetry package.
 */

export type OtlpProtocol = 'http/protobuf' | 'http/json';

export interface OtlpTarget {
  /** The traces URL spans are posted to. */
  url: string;
  protocol: OtlpProtocol;
}

/** The collector's default OTLP/HTTP address (the specification's default endpoint). */
export const DEFAULT_OTLP_ENDPOINT = 'http://localhost:4318';

/** A bad endpoint or protocol; the message names the fix. */
export class OtlpConfigError extends Error {
  readonly code = 'E_OTLP_CONFIG';
}

function withTracesPath(base: string): string {
  return `${base.replace(/\/+$/, '')}/v1/traces`;
}

function checkUrl(url: string, from: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new OtlpConfigError(`${from} is not a URL: "${url}"; give one like http://localhost:4318`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') {
    throw new OtlpConfigError(`${from} must be an http:// or https:// URL (OTLP over HTTP), got "${url}"`);
  }
  return url;
}

/**
 * Resolves the target. `flag` is the URL given to `--otlp` (undefined when the flag came bare): like
 * OTEL_EXPORTER_OTLP_ENDPOINT, a base address that gets `/v1/traces` (`http://host:4318`,
 * `https://gateway/otlp`), unless it already ends with `/v1/traces`. Without it: OTEL_EXPORTER_OTLP_TRACES_ENDPOINT (as it is), then OTEL_EXPORTER_OTLP_ENDPOINT
 * (+ `/v1/traces`), then http://localhost:4318/v1/traces. The protocol comes from
 * OTEL_EXPORTER_OTLP_TRACES_PROTOCOL or OTEL_EXPORTER_OTLP_PROTOCOL (default http/protobuf).
 */
export function resolveOtlpTarget(flag: string | undefined, env: Record<string, string | undefined>): OtlpTarget {
  let url: string;
  if (flag !== undefined && flag !== '') {
    checkUrl(flag, '--otlp');
    url = /\/v1\/traces\/?$/.test(new URL(flag).pathname) ? flag : withTracesPath(flag);
  } else if (env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) {
    url = checkUrl(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT.trim(), 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT');
  } else if (env.OTEL_EXPORTER_OTLP_ENDPOINT) {
    url = withTracesPath(checkUrl(env.OTEL_EXPORTER_OTLP_ENDPOINT.trim(), 'OTEL_EXPORTER_OTLP_ENDPOINT'));
  } else {
    url = withTracesPath(DEFAULT_OTLP_ENDPOINT);
  }
  const name = env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ? 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL' : 'OTEL_EXPORTER_OTLP_PROTOCOL';
  const raw = (env[name] ?? '').trim() || 'http/protobuf';
  if (raw !== 'http/protobuf' && raw !== 'http/json') {
    throw new OtlpConfigError(raw === 'grpc'
      ? `${name}=grpc is not supported; use http/protobuf or http/json (a collector takes OTLP/HTTP on port 4318)`
      : `${name} must be http/protobuf or http/json, got "${raw}"`);
  }
  return { url, protocol: raw };
}
