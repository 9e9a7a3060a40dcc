import { expect } from 'chai';
import mongoose from 'mongoose';
import { Counter, nextId } from '../src/shared/ids/counter.model';
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

  describe('allocating for callers that arrive together', () => {
    const collection = () => mongoose.connection.collection(Counter.collection.collectionName);
    let original: ReturnType<typeof collection>['findOneAndUpdate'];
    let calls: number;
    let failNext: boolean;
    beforeEach(() => {
      const counters = collection();
      original = counters.findOneAndUpdate;
      calls = 0;
      failNext = false;
      counters.findOneAndUpdate = function (this: unknown, ...args: unknown[]) {
        calls += 1;
        if (failNext) {
          failNext = false;
          return Promise.reject(new Error('MongoDB went away'));
        }
        return (original as (...a: unknown[]) => unknown).apply(this, args);
      } as typeof original;
    });
    afterEach(() => {
      collection().findOneAndUpdate = original;
    });

    it('reserves the ids of everyone who asked meanwhile with one increment', async () => {
      const counter = uniqueName('counter');
      const ids = await Promise.all(Array.from({ length: 50 }, () => nextId(counter)));
      // The first caller's increment alone, then one for the 49 who arrived during it.
      expect(calls).to.equal(2);
      expect(ids).to.deep.equal(Array.from({ length: 50 }, (_, i) => i + 1));
      expect(await nextId(counter)).to.equal(51);
    });

    it('fails only the callers of a failed increment; the next ones get the next ids', async () => {
      const counter = uniqueName('counter');
      expect(await nextId(counter)).to.equal(1);
      failNext = true;
      const [failed, ...later] = await Promise.allSettled([
        nextId(counter),
        nextId(counter),
        nextId(counter),
      ]);
      expect(failed).to.deep.include({ status: 'rejected' });
      expect((failed as PromiseRejectedResult).reason).to.have.property(
        'message',
        'MongoDB went away',
      );
      expect(later).to.deep.equal([
        { status: 'fulfilled', value: 2 },
        { status: 'fulfilled', value: 3 },
      ]);
    });
  });
});
