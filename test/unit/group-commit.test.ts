import { expect } from 'chai';
import { groupCommit } from '../../src/shared/db/group-commit';

describe('groupCommit', () => {
  it('writes the items asked for in one turn together, and those arriving during a write in the next', async () => {
    const groups: number[][] = [];
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const write = groupCommit<number, number>(async (items) => {
      groups.push(items);
      if (groups.length === 1) await gate;
      return items.map((i) => i * 10);
    });
    const first = [write(1), write(2), write(3)];
    await new Promise((resolve) => setImmediate(resolve));
    const later = [write(4), write(5)];
    release();
    expect(await Promise.all([...first, ...later])).to.deep.equal([10, 20, 30, 40, 50]);
    expect(groups).to.deep.equal([
      [1, 2, 3],
      [4, 5],
    ]);
  });

  it('fails only the item whose outcome is an Error, and every item of a group whose write throws', async () => {
    const write = groupCommit<number, number>(async (items) => {
      if (items.includes(99)) throw new Error('write lost');
      return items.map((i) => (i === 2 ? new Error('two refused') : i));
    });
    const results = await Promise.allSettled([write(1), write(2), write(3)]);
    expect(results.map((r) => r.status)).to.deep.equal(['fulfilled', 'rejected', 'fulfilled']);
    const lost = await Promise.allSettled([write(7), write(99)]);
    expect(
      lost.map((r) => (r.status === 'rejected' ? (r.reason as Error).message : r.value)),
    ).to.deep.equal(['write lost', 'write lost']);
  });
});
