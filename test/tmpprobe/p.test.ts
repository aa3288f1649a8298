import { startNode } from '../e2e/harness.js';
import { test } from 'vitest';
test('probe', async () => {
const node = await startNode({ blockInterval: 0.3 });
console.log(node.url);
for (const [m, p] of [
  ['registerName', { name: 'a.b.c.d', registrationTimeInBlocks: 2102400, capacity: 1 }],
  ['registerName', { name: 'a.b.c', registrationTimeInBlocks: 2102400, capacity: 1 }],
  ['getRegName', { name: '１２３', useAbsoluteId: false }],
  ['getRegName', { name: 'ab１２３.x', useAbsoluteId: false }],
  ['getRegNameRecords', { name: '１２３', useAbsoluteId: false }],
  ['getRegName', { name: '１２３' }],
] as const) {
  const r = await node.rpc(m, p as any);
  console.log(m, JSON.stringify(p), JSON.stringify(r).slice(0, 300));
}
const tx = await node.rpc('txa', { count: 5 });
console.log(JSON.stringify(tx).slice(0, 1500));
await node.stop();
console.log(node.output().split('\n').filter((l) => /error|stack/i.test(l)).join('\n').slice(0, 3000));
});
