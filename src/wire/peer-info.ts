/** Who is talking: client and agent names and versions and the protocol version, read from the initialize exchange. Pure. */
import type { Frame, Item } from './frame.js';

/** Client/agent names, versions and the protocol version, read from the initialize exchange. */
export function peerInfoOf(items: Iterable<Item>): {
  clientName?: string; clientVersion?: string; agentName?: string; agentVersion?: string; protocolVersion?: number;
} {
  const out: ReturnType<typeof peerInfoOf> = {};
  for (const it of items) {
    if (it.dir !== 'c2a' && it.dir !== 'a2c') continue;
    Object.assign(out, peerInfoFromFrame(it as Frame));
    if (out.agentName !== undefined && out.clientName !== undefined) break;
  }
  return out;
}

/** Peer info carried by one frame (an initialize request or its result). */
export function peerInfoFromFrame(f: Frame): ReturnType<typeof peerInfoOf> {
  const out: ReturnType<typeof peerInfoOf> = {};
  const j = f.json as Record<string, any> | undefined;
  if (!j || typeof j !== 'object') return out;
  if (f.kind === 'request' && f.method === 'initialize' && f.dir === 'c2a') {
    const info = j.params?.clientInfo;
    if (info && typeof info === 'object') {
      if (typeof info.name === 'string') out.clientName = info.name;
      if (typeof info.version === 'string') out.clientVersion = info.version;
    }
  } else if (f.kind === 'result' && f.method === 'initialize' && f.dir === 'a2c') {
    const info = j.result?.agentInfo;
    if (info && typeof info === 'object') {
      if (typeof info.name === 'string') out.agentName = info.name;
      if (typeof info.version === 'string') out.agentVersion = info.version;
    }
    if (typeof j.result?.protocolVersion === 'number') out.protocolVersion = j.result.protocolVersion;
  }
  return out;
}

