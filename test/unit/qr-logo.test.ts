import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import sharp from 'sharp';
import { LogoError } from '../../src/qr-codes/logo/logo-errors';
import { fetchLogo, type Resolver } from '../../src/qr-codes/logo/logo-fetch';
import { checkLogoAtOnce, loadLogo, resolveLogoFile } from '../../src/qr-codes/logo/logo-source';
import { servePng, solidLogo, startLogoServer, type LogoServer } from '../support/qr';

async function failure(promise: Promise<unknown>): Promise<LogoError> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof LogoError) return err;
    throw err;
  }
  throw new Error('expected a LogoError');
}

describe('logo sources', () => {
  let server: LogoServer;
  let png: Buffer;
  let dir: string;
  let outside: string;

  before(async () => {
    server = await startLogoServer();
    png = await solidLogo({ r: 200, g: 0, b: 0 });
    server.route('/logo.png', servePng(png));
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'qr-logos-'));
    outside = fs.mkdtempSync(path.join(os.tmpdir(), 'qr-outside-'));
    fs.writeFileSync(path.join(dir, 'logo.png'), png);
    fs.writeFileSync(path.join(dir, 'notes.png'), 'not an image at all');
    fs.mkdirSync(path.join(dir, 'brand'));
    fs.writeFileSync(path.join(dir, 'brand', 'mark.png'), png);
    fs.writeFileSync(path.join(outside, 'secret.png'), png);
    fs.symlinkSync(path.join(outside, 'secret.png'), path.join(dir, 'escape.png'));
    fs.symlinkSync(outside, path.join(dir, 'outdir'));
    fs.symlinkSync(path.join(dir, 'brand', 'mark.png'), path.join(dir, 'alias.png'));
  });
  after(async () => {
    await server.close();
    fs.rmSync(dir, { recursive: true, force: true });
    fs.rmSync(outside, { recursive: true, force: true });
  });

  describe('URL fetch', () => {
    const open = { allowPrivate: true };

    it('downloads an image from an allowed host', async () => {
      expect((await fetchLogo(`${server.origin}/logo.png`, open)).equals(png)).to.equal(true);
    });

    it('refuses a loopback address unless private targets are allowed', async () => {
      const err = await failure(fetchLogo(`${server.origin}/logo.png`, { allowPrivate: false }));
      expect(err.message).to.equal('logo URL points to a private or local network address');
      expect(err.permanent).to.equal(true);
      expect(server.hits('/logo.png')).to.equal(1); // only the allowed download above
    });

    it('refuses a host name that resolves to a private address', async () => {
      const url = `http://localhost:${new URL(server.origin).port}/logo.png`;
      const err = await failure(fetchLogo(url, { allowPrivate: false }));
      expect(err.message).to.equal('logo URL points to a private or local network address');
    });

    it('refuses IPv4-mapped and bracketed IPv6 loopback forms', async () => {
      for (const host of ['[::1]', '[::ffff:127.0.0.1]', '[::ffff:7f00:1]']) {
        const err = await failure(fetchLogo(`http://${host}:1/logo.png`, { allowPrivate: false }));
        expect(err.message, host).to.equal('logo URL points to a private or local network address');
      }
    });

    it('checks every redirect hop against the policy', async () => {
      // The loopback server stands in for a public host; only 127.0.0.2 counts as private here.
      const resolve: Resolver = async (host) => [
        { address: host === 'internal.test' ? '127.0.0.2' : '127.0.0.1', family: 4 },
      ];
      const policy = {
        allowPrivate: false,
        resolve,
        isForbidden: (ip: string) => ip === '127.0.0.2',
      };
      const port = new URL(server.origin).port;
      server.route('/hop', (_req, res) => {
        res.writeHead(302, { location: `http://internal.test:${port}/logo.png` });
        res.end();
      });
      const direct = await fetchLogo(`http://public.test:${port}/logo.png`, policy);
      expect(direct.equals(png)).to.equal(true);
      const err = await failure(fetchLogo(`http://public.test:${port}/hop`, policy));
      expect(err.message).to.equal('logo URL points to a private or local network address');
    });

    it('follows at most three redirects', async () => {
      server.route('/loop', (_req, res) => {
        res.writeHead(301, { location: '/loop' });
        res.end();
      });
      const err = await failure(fetchLogo(`${server.origin}/loop`, open));
      expect(err.message).to.equal('logo URL redirects too many times');
      expect(err.permanent).to.equal(true);
    });

    it('caps the size, whether or not the server declares it', async () => {
      server.route('/big', (_req, res) => res.end(Buffer.alloc(5000)));
      server.route('/big-chunked', (_req, res) => {
        res.write(Buffer.alloc(3000));
        res.end(Buffer.alloc(3000));
      });
      for (const p of ['/big', '/big-chunked']) {
        const err = await failure(fetchLogo(`${server.origin}${p}`, { ...open, maxBytes: 4000 }));
        expect(err.message, p).to.equal('logo is larger than 4000 bytes');
        expect(err.permanent).to.equal(true);
      }
    });

    it('gives up after the timeout, as a failure worth retrying', async () => {
      server.route('/hang', () => undefined);
      const err = await failure(fetchLogo(`${server.origin}/hang`, { ...open, timeoutMs: 150 }));
      expect(err.message).to.equal('logo download timed out after 150 ms');
      expect(err.permanent).to.equal(false);
    });

    it('treats 4xx as permanent and 5xx as transient', async () => {
      server.route('/unavailable', (_req, res) => {
        res.statusCode = 503;
        res.end();
      });
      const missing = await failure(fetchLogo(`${server.origin}/missing.png`, open));
      expect([missing.message, missing.permanent]).to.deep.equal([
        'logo URL answered HTTP 404',
        true,
      ]);
      const down = await failure(fetchLogo(`${server.origin}/unavailable`, open));
      expect([down.message, down.permanent]).to.deep.equal(['logo URL answered HTTP 503', false]);
    });

    it('accepts only http and https, without credentials', async () => {
      for (const [url, message] of [
        ['file:///etc/passwd', 'logo URL must use http or https'],
        ['ftp://example.com/a.png', 'logo URL must use http or https'],
        ['http://user:pw@example.com/a.png', 'logo URL must not carry credentials'],
      ] as const) {
        expect((await failure(fetchLogo(url, open))).message, url).to.equal(message);
      }
    });

    it('refuses bytes that are not a png or jpeg', async () => {
      const gif = await sharp({
        create: { width: 4, height: 4, channels: 3, background: '#000' },
      })
        .gif()
        .toBuffer();
      server.route('/logo.gif', servePng(gif));
      server.route('/page.png', (_req, res) => res.end('<html>hello</html>'));
      const options = { ...open, logoDir: dir };
      for (const p of ['/logo.gif', '/page.png']) {
        const err = await failure(loadLogo(`${server.origin}${p}`, options));
        expect(err.message, p).to.equal('logo is not a png or jpeg image');
      }
      const jpeg = await solidLogo({ r: 0, g: 0, b: 200 }, 'jpeg');
      server.route('/logo.jpg', servePng(jpeg));
      expect((await loadLogo(`${server.origin}/logo.jpg`, options)).equals(jpeg)).to.equal(true);
    });

    it('lets the API accept a URL whose DNS trouble may pass, for the worker to retry', async () => {
      const resolve: Resolver = async () => {
        throw Object.assign(new Error('try again'), { code: 'EAI_AGAIN' });
      };
      await checkLogoAtOnce('https://logo.example.test/a.png', {
        logoDir: dir,
        allowPrivate: false,
        resolve,
      });
    });
  });

  describe('files in LOGO_DIR', () => {
    it('reads a file by relative or absolute path inside the directory', async () => {
      const options = { logoDir: dir, allowPrivate: false };
      expect((await loadLogo('logo.png', options)).equals(png)).to.equal(true);
      expect((await loadLogo('brand/mark.png', options)).equals(png)).to.equal(true);
      expect((await loadLogo(path.join(dir, 'logo.png'), options)).equals(png)).to.equal(true);
      expect((await loadLogo('alias.png', options)).equals(png)).to.equal(true);
    });

    it('refuses paths that leave the directory, symlinks included', async () => {
      for (const p of [
        '../x.png',
        'brand/../../x.png',
        '/etc/hostname',
        'escape.png',
        'outdir/secret.png',
        '.',
      ]) {
        const err = await failure(resolveLogoFile(dir, p));
        expect(err.message, p).to.equal('logo path must stay inside LOGO_DIR');
      }
    });

    it('names a missing file, a directory and a file that is not an image', async () => {
      const options = { logoDir: dir, allowPrivate: false };
      expect((await failure(loadLogo('nope.png', options))).message).to.equal(
        'logo file not found in LOGO_DIR',
      );
      expect((await failure(loadLogo('brand', options))).message).to.equal(
        'logo path is not a file',
      );
      expect((await failure(loadLogo('notes.png', options))).message).to.equal(
        'logo is not a png or jpeg image',
      );
    });
  });
});
