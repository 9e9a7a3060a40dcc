import { expect } from 'chai';
import { nextId } from '../src/shared/ids/counter.model';
import { createTestUser, uniqueName } from './support/users';

describe('integer ids', () => {
  it('gives 100 concurrent allocations 100 distinct consecutive ids', async () => {
    const counter = uniqueName('counter');
    const ids = await Promise.all(Array.from({ length: 100 }, () => nextId(counter)));
    expect(new Set(ids).size).to.equal(100);
    expect([...ids].sort((a, b) => a - b)).to.deep.equal(
      Array.from({ length: 100 }, (_, i) => i + 1),
    );
  });

  it('gives concurrently created users distinct ids', async () => {
    const users = await Promise.all(Array.from({ length: 20 }, () => createTestUser()));
    expect(new Set(users.map((u) => u.user.id)).size).to.equal(20);
  });
});
