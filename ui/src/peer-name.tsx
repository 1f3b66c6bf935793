/** One side of a recording, named: its clientInfo/agentInfo, else the command that started it (muted, the full line on hover). */
import { nameLabel, peerLabel } from '../../src/view/names.js';
import type { RecordingSummary } from './api.js';

export function PeerName({ r, side }: { r: RecordingSummary; side: 'agent' | 'client' }) {
  const named = nameLabel(r[side]);
  if (named) return <span class="peer">{named}</span>;
  const cmd = peerLabel(r, side);
  if (cmd) return <span class="peer cmd" title={`no ${side}Info in initialize; started as: ${r.command!.join(' ')}`}>{cmd}</span>;
  return <span class="peer muted" title={`no ${side}Info in initialize`}>—</span>;
}
