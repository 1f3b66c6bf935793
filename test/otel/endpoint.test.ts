/** Where `--otlp` sends: the flag, then the standard variables, then the collector's default. */
import { describe, expect, it } from 'vitest';
import { OtlpConfigError, resolveOtlpTarget } from '../../src/otel/endpoint.js';

describe('resolveOtlpTarget', () => {
  it('takes --otlp as a base URL, like OTEL_EXPORTER_OTLP_ENDPOINT, unless it already names /v1/traces', () => {
    expect(resolveOtlpTarget('http://h:4318', {}).url).toBe('http://h:4318/v1/traces');
    expect(resolveOtlpTarget('http://h:4318/', {}).url).toBe('http://h:4318/v1/traces');
    expect(resolveOtlpTarget('https://gateway.example/otlp', {}).url).toBe('https://gateway.example/otlp/v1/traces');
    expect(resolveOtlpTarget('http://h:4318/v1/traces', {}).url).toBe('http://h:4318/v1/traces');
    expect(resolveOtlpTarget('http://h:4318', { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://other:4318' }).url).toBe('http://h:4318/v1/traces');
  });

  it('falls back to the traces endpoint as it is, then the endpoint plus /v1/traces, then localhost:4318', () => {
    expect(resolveOtlpTarget(undefined, { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://x/custom', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://y' }).url).toBe('http://x/custom');
    expect(resolveOtlpTarget(undefined, { OTEL_EXPORTER_OTLP_ENDPOINT: 'https://gw/otlp/' }).url).toBe('https://gw/otlp/v1/traces');
    expect(resolveOtlpTarget(undefined, {})).toEqual({ url: 'http://localhost:4318/v1/traces', protocol: 'http/protobuf' });
  });

  it('reads the protocol, the traces-specific variable first, and refuses what it cannot send', () => {
    expect(resolveOtlpTarget(undefined, { OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' }).protocol).toBe('http/json');
    expect(resolveOtlpTarget(undefined, { OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/protobuf' }).protocol).toBe('http/protobuf');
    expect(() => resolveOtlpTarget(undefined, { OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })).toThrow(/grpc is not supported; use http\/protobuf or http\/json/);
    expect(() => resolveOtlpTarget(undefined, { OTEL_EXPORTER_OTLP_PROTOCOL: 'thrift' })).toThrow(OtlpConfigError);
    expect(() => resolveOtlpTarget('localhost:4318', {})).toThrow(/--otlp is not a URL|must be an http/);
    expect(() => resolveOtlpTarget(undefined, { OTEL_EXPORTER_OTLP_ENDPOINT: 'not a url' })).toThrow(/OTEL_EXPORTER_OTLP_ENDPOINT is not a URL/);
  });
});
