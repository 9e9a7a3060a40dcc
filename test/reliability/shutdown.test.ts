import { expect } from 'chai';
import http from 'node:http';
import { baseEnv } from '../support/environment';
import { startApiProcess, type ServiceProcess } from '../support/processes';
import { createTestUser, uniqueName } from '../support/users';
import { Link } from '../../src/links/link.model';
import { eventually } from '../support/links';
import { sample } from '../support/metrics';

interface Outcome {
  status?: number;
  connection?: string;
  error?: string;
  body?: string;
}

function send(
  agent: http.Agent,
  url: string,
  path: string,
  key: string,
  body?: unknown,
): Promise<Outcome> {
  return new Promise((resolve) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = http.request(
      `${url}${path}`,
      {
        agent,
        method: payload ? 'POST' : 'GET',
        headers: {
          authorization: `Bearer ${key}`,
          ...(payload
            ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) }
            : {}),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode,
            connection: res.headers.connection,
            body: Buffer.concat(chunks).toString(),
          }),
        );
        res.on('error', (err: NodeJS.ErrnoException) =>
          resolve({ error: err.code ?? err.message }),
        );
      },
    );
    req.on('error', (err: NodeJS.ErrnoException) => resolve({ error: err.code ?? err.message }));
    req.end(payload);
  });
}

describe('graceful shutdown drops nothing (issue 11)', function () {
  this.timeout(60_000);
  let api: (ServiceProcess & { url: string }) | undefined;
  after(() => api?.stop());

  it('after SIGTERM, a client of 10 keep-alive connections sees zero resets and every created link exists', async () => {
    const { apiKey } = await createTestUser();
    api = await startApiProcess({
      ...baseEnv(),
      LOG_LEVEL: 'info',
      REDIS_PREFIX: `${baseEnv().REDIS_PREFIX}${uniqueName('sd')}:`,
    });
    const agent = new http.Agent({ keepAlive: true, maxSockets: 10 });
    const outcomes: Outcome[] = [];
    const created: string[] = [];
    let completed = 0;
    let signalled!: () => void;
    const halfway = new Promise<void>((resolve) => (signalled = resolve));

    const hammer = async (n: number) => {
      for (let i = 0; ; i += 1) {
        const alias = `sd${n}x${i}${uniqueName('a').slice(-6)}`;
        const outcome =
          i % 2 === 0
            ? await send(agent, api!.url, '/api/url/add', apiKey, {
                url: 'https://example.com/',
                custom: alias,
              })
            : await send(agent, api!.url, '/api/account', apiKey);
        outcomes.push(outcome);
        if (outcome.status === 200 && i % 2 === 0) created.push(alias);
        completed += 1;
        if (completed === 200) signalled();
        // Refused: the server stopped listening, this request never reached it. Done.
        if (outcome.error === 'ECONNREFUSED') return;
      }
    };
    const clients = Array.from({ length: 10 }, (_, n) => hammer(n));
    await halfway;
    api.child.kill('SIGTERM');
    await Promise.all(clients);
    expect(await api.exit).to.equal(0);
    agent.destroy();

    const failures = outcomes.filter((o) => o.error && o.error !== 'ECONNREFUSED');
    expect(failures, JSON.stringify(failures.slice(0, 5))).to.deep.equal([]);
    expect(outcomes.filter((o) => o.status !== undefined && o.status !== 200)).to.deep.equal([]);
    expect(outcomes.some((o) => o.connection === 'close')).to.equal(true);
    const stored = await Link.countDocuments({ alias: { $in: created } });
    expect(stored).to.equal(created.length);
  });

  it('a second SIGTERM while shutting down (a process group killed, and the launcher forwarding) is not fatal: the request in flight is answered, the exit is 0', async () => {
    const { apiKey } = await createTestUser();
    api = await startApiProcess({
      ...baseEnv(),
      QR_IMAGE_WAIT_MS: '3000',
      REDIS_PREFIX: `${baseEnv().REDIS_PREFIX}${uniqueName('sd2')}:`,
    });
    const agent = new http.Agent({ keepAlive: false });
    // No worker runs here: the code stays pending, and its image request waits QR_IMAGE_WAIT_MS.
    const created = await send(agent, api.url, '/api/qr/add', apiKey, { type: 'text', data: 'x' });
    const { link } = JSON.parse(created.body ?? '{}') as { link: string };
    const image = send(agent, api.url, new URL(link).pathname + '.png', apiKey);
    await eventually(async () => {
      const metrics = await (await fetch(`${api!.url}/metrics`)).text();
      return sample(metrics, 'linkqr_qr_image_requests_waiting') === 1;
    }, 'the image request waits');
    api.child.kill('SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 300));
    api.child.kill('SIGTERM');
    expect((await image).status).to.equal(202);
    expect(await api.exit).to.equal(0);
    agent.destroy();
  });
});
