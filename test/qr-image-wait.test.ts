import { expect } from 'chai';
import { qrLookupCacheFor } from '../src/qr-codes/qr-lookup-cache';
import type { LogoHandler } from './support/qr';
import { startTestApp, type TestApp } from './support/app-harness';
import { client } from './support/http';
import { eventually } from './support/links';
import { sample } from './support/metrics';
import { decodeImage, imagePath, servePng } from './support/qr';
import { useQrEnvironment } from './support/qr-env';
import { createTestUser } from './support/users';

/**
 * An image asked for while its code renders is answered when the render ends: an `<img>` placed
 * right after creation shows the code instead of a 202 page, and no client needs to poll.
 */
/** Starts a GET of the image; resolves once the API holds it, waiting for the render. */
async function waitingImage(app: TestApp, link: string, signal?: AbortSignal) {
  const cache = qrLookupCacheFor(app.deps);
  // Until the API hears invalidations, no render's end could reach a waiting request.
  await cache.whenLive();
  const before = cache.watchCount;
  const answer = fetch(`${app.url}${imagePath(link)}`, { signal }).then(
    async (res) => ({ res, bytes: Buffer.from(await res.arrayBuffer()) }),
    (err: Error) => err,
  );
  await eventually(async () => cache.watchCount > before, 'the image request waits');
  return { answer };
}

async function answered(answer: Promise<{ res: Response; bytes: Buffer } | Error>) {
  const result = await answer;
  if (result instanceof Error) throw result;
  return result;
}

describe('QR images asked for while rendering', () => {
  const env = useQrEnvironment();

  /** A logo route that answers only once released, so the render stays pending until then. */
  function heldLogo(path: string, answer: LogoHandler): () => void {
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    env.logos.route(path, (req, res) => void held.then(() => answer(req, res)));
    return release;
  }

  /** A new code held rendering on its logo, and a request for its image already waiting. */
  async function waitingForRender(name: string, data: string, answer: LogoHandler) {
    const release = heldLogo(`/${name}.png`, answer);
    const user = await createTestUser();
    const { link } = await env.create(
      user,
      { type: 'text', data, logo: `${env.logos.origin}/${name}.png` },
      env.openApp,
    );
    return { release, ...(await waitingImage(env.app, link)) };
  }

  it('answers 200 with the image once the render ends, to the request made before', async () => {
    const { release, answer } = await waitingForRender(
      'wait-ready',
      'worth the wait',
      servePng(env.red),
    );
    release();
    const { res, bytes } = await answered(answer);
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.equal('image/png');
    expect((await decodeImage(bytes)).text).to.equal('worth the wait');
    expect(qrLookupCacheFor(env.app.deps).watchCount).to.equal(0);
  });

  it('answers from the images the worker hands over with its announcement: no MongoDB read', async () => {
    const { release, answer } = await waitingForRender(
      'wait-handed',
      'handed over',
      servePng(env.red),
    );
    const lookups = async () => {
      const text = await (await fetch(`${env.app.url}/metrics`)).text();
      const count = (cache: string, result: string) =>
        sample(text, 'linkqr_cache_lookups_total', { cache, result });
      return {
        codesRead: count('qr-codes', 'miss'),
        imagesRead: count('qr-images', 'miss'),
        imagesHeld: count('qr-images', 'hit'),
      };
    };
    const before = await lookups();
    release();
    const { res, bytes } = await answered(answer);
    expect(res.status).to.equal(200);
    expect((await decodeImage(bytes)).text).to.equal('handed over');
    const after = await lookups();
    expect(after.codesRead).to.equal(before.codesRead);
    expect(after.imagesRead).to.equal(before.imagesRead);
    expect(after.imagesHeld).to.equal(before.imagesHeld + 1);
  });

  it('answers 422 when the render it waited for fails', async () => {
    const { release, answer } = await waitingForRender('wait-fail', 'x', (_req, res) =>
      res.end('<html>not a logo</html>'),
    );
    release();
    const { res, bytes } = await answered(answer);
    expect(res.status).to.equal(422);
    expect(res.headers.get('cache-control')).to.equal('no-store');
    expect(bytes.toString()).to.include('could not be rendered');
  });
});

describe('QR images asked for while rendering, without a worker', () => {
  const apps: TestApp[] = [];
  after(() => Promise.all(apps.splice(0).map((app) => app.close())));
  async function app(env: NodeJS.ProcessEnv = {}) {
    const started = await startTestApp(env);
    apps.push(started);
    await qrLookupCacheFor(started.deps).whenLive();
    return started;
  }
  async function pendingCode(target: TestApp) {
    const user = await createTestUser();
    const res = await client(target.url, user.apiKey).post<{ id: number; link: string }>(
      '/api/qr/add',
      { type: 'text', data: 'never rendered' },
    );
    expect(res.status, res.text).to.equal(200);
    return { user, ...res.body };
  }

  it('answers 202 with Retry-After once QR_IMAGE_WAIT_MS has passed', async () => {
    const target = await app({ QR_IMAGE_WAIT_MS: '300' });
    const { link } = await pendingCode(target);
    const res = await fetch(`${target.url}${imagePath(link)}`);
    expect(res.status).to.equal(202);
    expect(res.headers.get('retry-after')).to.equal('2');
    expect(res.headers.get('cache-control')).to.equal('no-store');
    expect(await res.text()).to.include('being rendered');
    expect(qrLookupCacheFor(target.deps).watchCount).to.equal(0);
  });

  it('answers 202 without waiting when QR_IMAGE_WAIT_MS is 0', async () => {
    const target = await app({ QR_IMAGE_WAIT_MS: '0' });
    const { link } = await pendingCode(target);
    const cache = qrLookupCacheFor(target.deps);
    const watch = cache.watch.bind(cache);
    let watched = 0;
    cache.watch = (key) => {
      watched += 1;
      return watch(key);
    };
    const res = await fetch(`${target.url}${imagePath(link)}`);
    expect(res.status).to.equal(202);
    expect(watched).to.equal(0);
  });

  it('answers 404 when the code is deleted while the request waits', async () => {
    const target = await app();
    const { user, id, link } = await pendingCode(target);
    const { answer } = await waitingImage(target, link);
    const deleted = await client(target.url, user.apiKey).delete(`/api/qr/${id}/delete`);
    expect(deleted.status).to.equal(200);
    const { res, bytes } = await answered(answer);
    expect(res.status).to.equal(404);
    expect(bytes.toString()).to.include('Not found');
  });

  it('stops waiting when the visitor hangs up; the metrics show the requests waiting', async () => {
    const target = await app();
    const waiting = async () =>
      sample(
        await (await fetch(`${target.url}/metrics`)).text(),
        'linkqr_qr_image_requests_waiting',
      );
    const { link } = await pendingCode(target);
    expect(await waiting()).to.equal(0);
    const visitor = new AbortController();
    const { answer } = await waitingImage(target, link, visitor.signal);
    expect(await waiting()).to.equal(1);
    visitor.abort();
    expect(await answer).to.be.instanceOf(Error);
    await eventually(async () => (await waiting()) === 0, 'the wait is given up');
  });
});
