import { defineRule } from '../rule.js';

export const recordingGap = defineRule({
  id: 'recording-gap',
  severity: 'info',
  spec: '4',
  title: 'Frames missing from the recording',
  specText: 'Requests get a response (a gap in the recording can hide requests or responses, so findings around it may be wrong).',
  layer: 'wire',
  item(c) {
    if (c.item.dir === 'event' && c.item.type === 'gap') c.report('the recording has a gap here: frames were lost, so findings about pairing and state around it may be wrong');
  },
});
