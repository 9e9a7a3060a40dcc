import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import { expect } from 'chai';
import { startTestApp, type TestApp } from './support/app-harness';
import { baseEnv, testRedisPrefix } from './support/environment';
import { client } from './support/http';
import {
  decodeImage,
  imagePath,
  servePng,
  solidLogo,
  startLogoServer,
  startQrWorker,
  waitForRender,
  type LogoServer,
} from './support/qr';
import { createTestUser } from './support/users';
import type { QrRenderWorker } from '../workers/qr-render/qr-render.worker';

describe('QR render worker killed mid-job', function () {
  this.timeout(30_000);
  // A queue of its own, so the other suites' in-process workers cannot take this job first.
  const prefix = `${testRedisPrefix}crash:`;
  let app: TestApp;
  let logos: LogoServer;
  let child: ChildProcess | undefined;
  let rescuer: QrRenderWorker | undefined;

  before(async () => {
    app = await startTestApp({ REDIS_PREFIX: prefix, LOGO_ALLOW_PRIVATE: '1' });
    logos = await startLogoServer();
  });
  after(async () => {
    child?.kill('SIGKILL');
    await rescuer?.close();
    await Promise.all([app.close(), logos.close()]);
  });

  it('loses nothing: the job is recovered by another worker and the image ends rendered', async () => {
    const red = await solidLogo({ r: 220, g: 30, b: 30 });
    let inJob: () => void = () => undefined;
    const reached = new Promise<void>((resolve) => (inJob = resolve));
    logos.route('/slow.png', (req, res) => {
      // The first worker to ask never gets an answer: it is inside the job when it is killed.
      if (logos.hits('/slow.png') === 1) return inJob();
      servePng(red)(req, res);
    });

    child = fork(path.join(__dirname, 'support', 'qr-worker-child.ts'), [], {
      execArgv: ['--import', 'tsx'],
      env: { ...process.env, ...baseEnv(), REDIS_PREFIX: prefix, LOGO_ALLOW_PRIVATE: '1' },
    });
    const [message] = (await once(child, 'message')) as [string];
    expect(message).to.equal('ready');

    const user = await createTestUser();
    const created = await client(app.url, user.apiKey).post<{ id: number; link: string }>(
      '/api/qr/add',
      { type: 'text', data: 'survives a crash', logo: `${logos.origin}/slow.png` },
    );
    expect(created.status).to.equal(200);
    const { id, link } = created.body;

    await reached;
    child.kill('SIGKILL');
    await once(child, 'exit');
    child = undefined;
    const meanwhile = await client(app.url, user.apiKey).get<{ details: { status: string } }>(
      `/api/qr/${id}`,
    );
    expect(meanwhile.body.details.status).to.equal('pending');

    rescuer = startQrWorker(app, { stalledInterval: 300, lockDuration: 1000 });
    const details = await waitForRender(app, user.apiKey, id, 20_000);
    expect(details.status).to.equal('ready');
    const res = await fetch(`${app.url}${imagePath(link)}`);
    expect(res.status).to.equal(200);
    expect((await decodeImage(Buffer.from(await res.arrayBuffer()))).text).to.equal(
      'survives a crash',
    );
    expect(logos.hits('/slow.png')).to.equal(2);
  });
});
