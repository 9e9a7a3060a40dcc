import { EventEmitter } from 'node:events';
import { expect } from 'chai';
import {
  LISTEN_AFTER_WORKER,
  relayWorkerReady,
  WORKER_READY,
  workerReady,
} from '../../src/shared/infra/launcher-signals';

/** A forked child as the launcher sees it: messages in, `send` out. */
class Child extends EventEmitter {
  connected = true;
  sent: unknown[] = [];
  send(message: unknown): boolean {
    this.sent.push(message);
    return true;
  }
}

describe('launcher signals (npm start: the API listens once the worker is warm)', () => {
  it('passes the worker-ready message on to the API, and nothing else the worker sends', () => {
    const worker = new Child();
    const api = new Child();
    relayWorkerReady(worker, api);
    worker.emit('message', { linkqr: 'something else' });
    worker.emit('message', 'worker-ready');
    worker.emit('message', null);
    expect(api.sent).to.deep.equal([]);
    worker.emit('message', { linkqr: 'worker-ready' });
    expect(api.sent).to.deep.equal([WORKER_READY]);
  });

  it('sends nothing to an API that is gone', () => {
    const worker = new Child();
    const api = new Child();
    api.connected = false;
    relayWorkerReady(worker, api);
    worker.emit('message', WORKER_READY);
    expect(api.sent).to.deep.equal([]);
  });

  it('does not wait outside the launcher: without the argument, or without an IPC channel', async () => {
    const settled = (p: Promise<void>) =>
      Promise.race([p.then(() => true), new Promise((r) => setImmediate(() => r(false)))]);
    const forked = new Child();
    expect(await settled(workerReady([], forked))).to.equal(true);
    const notForked = Object.assign(new EventEmitter(), { send: undefined });
    expect(await settled(workerReady([LISTEN_AFTER_WORKER], notForked))).to.equal(true);
  });

  it('waits, under the launcher, for the worker-ready message and nothing else', async () => {
    const settled = (p: Promise<void>) =>
      Promise.race([p.then(() => true), new Promise((r) => setImmediate(() => r(false)))]);
    const forked = new Child();
    const ready = workerReady([LISTEN_AFTER_WORKER], forked);
    forked.emit('message', { linkqr: 'something else' });
    expect(await settled(ready)).to.equal(false);
    forked.emit('message', WORKER_READY);
    expect(await settled(ready)).to.equal(true);
    expect(forked.listenerCount('message')).to.equal(0);
  });
});
