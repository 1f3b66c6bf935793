import { defineRule } from '../rule.js';
import { M } from '../../spec/methods.js';
import { agentCaps, obj } from './util.js';

const NEEDS: Record<string, string> = { image: 'image', audio: 'audio', resource: 'embeddedContext' };

export const promptBlockUnadvertised = defineRule({
  id: 'prompt-block-unadvertised',
  severity: 'error',
  spec: '4.4 rule 3',
  title: 'Prompt content block the agent did not advertise',
  specText: '`session/prompt`: every agent must accept `text` and `resource_link` blocks; `image`, `audio` and `resource` blocks are accepted only when the matching prompt capability is true. The client must adapt to the prompt capabilities.',
  methods: [M.prompt],
  kinds: ['request'],
  check(c) {
    const blocks = c.params?.prompt;
    if (!Array.isArray(blocks) || c.state.agent.capabilities === undefined) return;
    const pc = obj(agentCaps(c.state).promptCapabilities) ?? {};
    const seen = new Set<string>();
    for (let i = 0; i < blocks.length && i < 1000; i++) {
      const t = obj(blocks[i])?.type;
      if (typeof t !== 'string' || !Object.hasOwn(NEEDS, t) || seen.has(t)) continue;
      const cap = NEEDS[t]!;
      if (pc[cap] === true) continue;
      seen.add(t);
      c.report(`prompt[${i}] is a ${t} block, but the agent did not advertise promptCapabilities.${cap} = true`);
    }
  },
});
