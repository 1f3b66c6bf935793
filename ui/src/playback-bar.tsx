/** The playback controls: play/pause, speed, step back and forward, where the playhead is. */
import { useEffect } from 'preact/hooks';
import { atSeq } from './model.js';
import { playing, speed, SPEEDS, togglePlay, step, wf, playT, loadWaterfall, playIndex, type Speed } from './playback.js';
import { fmtClock } from './format.js';

export function PlaybackBar() {
  const d = wf.value?.data;
  // The item times come with the waterfall, fetched when playback is first used (or the URL has a playhead).
  useEffect(() => { if (atSeq.value !== null) void loadWaterfall(); }, []);
  const i = playIndex();
  const t = playT.value;
  return (
    <div class="playback" role="group" aria-label="Playback">
      <button type="button" onClick={() => step(-1)} aria-label="Step back one item" title="Step back one item (,)">|◀</button>
      <button type="button" onClick={togglePlay} aria-label={playing.value ? 'Pause' : 'Play'} title="Play or pause (space in the waterfall)">{playing.value ? '❙❙' : '▶'}</button>
      <button type="button" onClick={() => step(1)} aria-label="Step forward one item" title="Step forward one item (.)">▶|</button>
      <label class="speed">speed{' '}
        <select aria-label="Playback speed" value={String(speed.value)} onChange={(e) => { const v = (e.currentTarget as HTMLSelectElement).value; speed.value = (v === 'max' ? 'max' : Number(v)) as Speed; }}>
          {SPEEDS.map((s) => <option key={String(s)} value={String(s)}>{s === 'max' ? 'as fast as possible' : `${s}×`}</option>)}
        </select>
      </label>
      <span class="muted play-pos" aria-live="off">
        {d && t !== null ? `${fmtClock(t)} · item ${i >= 0 ? `#${d.frames.seq[i]} (${i + 1} of ${d.frames.seq.length})` : 'before the first'}` : 'play, step, or click the waterfall ruler'}
      </span>
    </div>
  );
}
