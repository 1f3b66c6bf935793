import { defineRule } from '../rule.js';

/** Reading: a recording may end before the agent cleans up, so this is a warning, reported at the agent's terminal/create request. */
export const terminalNotReleased = defineRule({
  id: 'terminal-not-released',
  severity: 'warning',
  spec: '3',
  title: 'Terminal never released',
  specText: 'Terminal: none → `terminal/create` → running, has a `terminalId`; agent must later release it.',
  end(c) {
    for (const k in c.state.terminals) {
      const t = c.state.terminals[k]!;
      if (t.status !== 'released') c.report(`terminal ${JSON.stringify(t.id)} created here (answered at #${t.seq}) was never released (terminal/release); the agent must release every terminal it creates`, { seq: t.createSeq ?? t.seq });
    }
  },
});
