import { expect } from 'chai';
import { Queue, Worker } from 'bullmq';
import {
  bullPrefix,
  QR_RENDER_QUEUE,
  qrFairShare,
  qrRenderJobFor,
  qrRenderJobId,
} from '../src/qr-codes/qr-codes.jobs';
import { QrCode } from '../src/qr-codes/qr-code.model';
import { createRedisClient, type RedisClient } from '../src/shared/infra/redis-connections';
import type { QrRenderWorker } from '../workers/qr-render/qr-render.worker';
import { startTestApp, type TestApp } from './support/app-harness';
import { startQrWorker, waitForRender } from './support/qr';
import { client } from './support/http';
import { eventually } from './support/links';
import { createTestUser, uniqueName } from './support/users';

/** Issue 29, M7: a render counted as outstanding that never ends (removed, or its worker crashed). */
describe('fair share: renders removed, queued twice or stalled (issue 29, M7)', function () {
  this.timeout(40_000);
  let app: TestApp;
  let connection: RedisClient;
  let worker: QrRenderWorker | undefined;

  before(async () => {
    app = await startTestApp({ REDIS_PREFIX: `${uniqueName('fairleak')}:` });
    connection = createRedisClient(app.config.redis, 'blocking');
  });
  after(async () => {
    await worker?.close();
    connection.disconnect();
    await app.close();
  });

  async function plainCode(apiKey: string) {
    const created = await client(app.url, apiKey).post<{ id: number }>('/api/qr/add', {
      type: 'text',
      data: uniqueName('fair'),
    });
    expect(created.status, created.text).to.equal(200);
    const qr = await QrCode.findOne({ id: created.body.id }).lean();
    if (!qr) throw new Error('the code was not stored');
    return qr;
  }

  it('counts a version queued twice once, and a sweep forgets a removed job', async () => {
    const { user, apiKey } = await createTestUser();
    const qr = await plainCode(apiKey);
    // The render sweep queues a pending code's version again; that must not count it again.
    await app.deps.qrQueue.enqueue(qrRenderJobFor(qr));
    const fair = qrFairShare(app.deps.redis, app.deps.keys, 0);
    expect(await fair.outstanding(user.id)).to.equal(1);

    const queue = new Queue(QR_RENDER_QUEUE, { connection, prefix: bullPrefix(app.deps.keys) });
    try {
      expect(await queue.remove(qrRenderJobId(qrRenderJobFor(qr)))).to.equal(1);
    } finally {
      await queue.close();
    }
    expect(await fair.outstanding(user.id)).to.equal(1);
    expect(await fair.sweep()).to.equal(1);
    expect(await fair.outstanding(user.id)).to.equal(0);
  });

  it('releases a render whose worker crashed mid-job, once another renders it', async () => {
    const { user, apiKey } = await createTestUser();
    const qr = await plainCode(apiKey);
    const fair = qrFairShare(app.deps.redis, app.deps.keys);
    // A worker takes the job and dies: its lock is never renewed, nor the job finished.
    const crashed = new Worker(QR_RENDER_QUEUE, null, {
      connection,
      prefix: bullPrefix(app.deps.keys),
      lockDuration: 500,
      autorun: false,
    });
    const taken = await crashed.getNextJob('crashed-worker');
    expect(taken?.id).to.equal(qrRenderJobId(qrRenderJobFor(qr)));
    expect(await fair.outstanding(user.id)).to.equal(1);

    worker = startQrWorker(app, { stalledInterval: 300, lockDuration: 5_000 });
    expect((await waitForRender(app, apiKey, qr.id, 20_000)).status).to.equal('ready');
    await eventually(async () => (await fair.outstanding(user.id)) === 0, 'released', 5_000);
    await crashed.close(true);
  });
});

/** Issue 29, M7: a job BullMQ fails itself for stalling too often never reaches the processor. */
describe('fair share: a render failed for stalling too often (issue 29, M7)', function () {
  this.timeout(40_000);
  let app: TestApp;
  let connection: RedisClient;
  let worker: QrRenderWorker | undefined;

  before(async () => {
    app = await startTestApp({ REDIS_PREFIX: `${uniqueName('fairstall')}:` });
    connection = createRedisClient(app.config.redis, 'blocking');
  });
  after(async () => {
    await worker?.close();
    connection.disconnect();
    await app.close();
  });

  it('releases it when the next worker takes it and BullMQ fails it for good', async () => {
    const { user, apiKey } = await createTestUser();
    const created = await client(app.url, apiKey).post<{ id: number }>('/api/qr/add', {
      type: 'text',
      data: uniqueName('stall'),
    });
    expect(created.status, created.text).to.equal(200);
    const qr = await QrCode.findOne({ id: created.body.id }).lean();
    if (!qr) throw new Error('the code was not stored');
    const jobId = qrRenderJobId(qrRenderJobFor(qr));
    const fair = qrFairShare(app.deps.redis, app.deps.keys);
    // A worker that takes the job and dies, twice: past maxStalledCount (1) BullMQ marks the job
    // to be failed by whichever worker takes it next, without running its processor.
    const crashing = new Worker(QR_RENDER_QUEUE, null, {
      connection,
      prefix: bullPrefix(app.deps.keys),
      lockDuration: 300,
      stalledInterval: 200,
      maxStalledCount: 1,
      autorun: false,
    });
    void crashing.startStalledCheckTimer();
    let taken = 0;
    while (taken < 2) {
      const job = await crashing.getNextJob(`crashed-${taken}`);
      if (job?.id === jobId) taken += 1;
    }
    const queue = new Queue(QR_RENDER_QUEUE, { connection, prefix: bullPrefix(app.deps.keys) });
    try {
      await eventually(
        async () => (await queue.getJob(jobId))?.deferredFailure !== undefined,
        'the job is marked to fail',
        10_000,
      );
      await crashing.close(true);
      expect(await fair.outstanding(user.id)).to.equal(1);

      worker = startQrWorker(app);
      await eventually(
        async () => (await queue.getJob(jobId).then((j) => j?.getState())) === 'failed',
        'the job failed for good',
        10_000,
      );
      await eventually(async () => (await fair.outstanding(user.id)) === 0, 'released', 5_000);
    } finally {
      await queue.close();
    }
  });
});
