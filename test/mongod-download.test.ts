import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { DryMongoBinary } from 'mongodb-memory-server-core';
import { createLogger } from '../src/shared/infra/logger';
import { checkExecutable, findOnPath } from '../src/shared/infra/mongo-engine/executables';
import {
  downloadedMongodVersion,
  downloadMongod,
  probeDownloadHost,
  unsupportedPlatform,
} from '../src/shared/infra/mongo-engine/mongod-download';
import { rejection } from './support/rejection';
import { fakeMongod } from './support/fake-mongod';

/** A loopback HTTP server that answers with `status`, or never answers when status is 0. */
async function server(status: number): Promise<{ url: string; close(): Promise<void> }> {
  const srv = http.createServer((_req, res) => {
    if (!status) return;
    res.writeHead(status, { 'content-length': '1024' }).end();
  });
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const { port } = srv.address() as net.AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/linux/mongodb-linux-x86_64-debian12-8.2.6.tgz`,
    close: () => {
      srv.closeAllConnections();
      return new Promise((resolve) => srv.close(() => resolve()));
    },
  };
}

describe('probeDownloadHost (the bounded check before a mongod download)', () => {
  it('lets the download go ahead when the host answers', async () => {
    const host = await server(200);
    try {
      await probeDownloadHost(host.url, 5_000);
    } finally {
      await host.close();
    }
  });

  it('refuses at once, naming the host, when nothing listens there', async () => {
    const host = await server(200);
    await host.close();
    const { port } = new URL(host.url);
    const err = await rejection(probeDownloadHost(host.url, 5_000));
    expect(err.message).to.match(
      new RegExp(`^cannot reach 127\\.0\\.0\\.1:${port} \\(connect ECONNREFUSED`),
    );
  });

  it('refuses when the host has no such build (HTTP 403, as MongoDB answers)', async () => {
    const host = await server(403);
    try {
      const err = await rejection(probeDownloadHost(host.url, 5_000));
      expect(err.message).to.equal(`${new URL(host.url).host} answered HTTP 403 for ${host.url}`);
    } finally {
      await host.close();
    }
  });

  it('gives up after the timeout when the host accepts but never answers, instead of hanging', async () => {
    const host = await server(0);
    try {
      const err = await rejection(probeDownloadHost(host.url, 200));
      expect(err.message).to.equal(
        `cannot reach ${new URL(host.url).host} (${new URL(host.url).host} did not answer within 200 ms)`,
      );
    } finally {
      await host.close();
    }
  });
});

describe('finding mongod on the PATH', () => {
  const dirs: string[] = [];
  after(() => {
    for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
  });
  function dir(files: Record<string, number> = {}): string {
    const made = fs.mkdtempSync(path.join(os.tmpdir(), 'linkqr-path-'));
    dirs.push(made);
    for (const [name, mode] of Object.entries(files)) {
      fs.writeFileSync(path.join(made, name), '#!/bin/sh\n', { mode });
    }
    return made;
  }

  it('takes the first executable mongod in PATH order, skipping empty entries and non-executables', async () => {
    const empty = dir();
    const notExecutable = dir({ mongod: 0o644 });
    const first = dir({ mongod: 0o755 });
    const second = dir({ mongod: 0o755 });
    const PATH = ['', empty, notExecutable, first, second].join(path.delimiter);
    expect(await findOnPath('mongod', PATH)).to.equal(path.join(first, 'mongod'));
  });

  it('finds nothing in a PATH without mongod, or without a PATH', async () => {
    expect(
      await findOnPath('mongod', [dir(), dir({ mongos: 0o755 })].join(path.delimiter)),
    ).to.equal(undefined);
    expect(await findOnPath('mongod', undefined)).to.equal(undefined);
  });

  it('says why a named binary cannot run', async () => {
    const where = dir({ plain: 0o644, mongod: 0o755 });
    expect((await rejection(checkExecutable(path.join(where, 'missing')))).message).to.equal(
      'no such file',
    );
    expect((await rejection(checkExecutable(where))).message).to.equal('not a file');
    expect((await rejection(checkExecutable(path.join(where, 'plain')))).message).to.equal(
      'not executable',
    );
    await checkExecutable(path.join(where, 'mongod'));
  });
});

/** A loopback mirror serving a MongoDB-shaped archive (with its .md5) for any build it is asked for. */
async function mirror(archive: Buffer) {
  const requests: string[] = [];
  const md5 = createHash('md5').update(archive).digest('hex');
  const srv = http.createServer((req, res) => {
    requests.push(`${req.method} ${req.url}`);
    if (req.url?.endsWith('.tgz.md5')) res.end(`${md5}  archive.tgz\n`);
    else if (req.url?.endsWith('.tgz')) {
      res.writeHead(200, { 'content-length': String(archive.length) });
      res.end(req.method === 'HEAD' ? undefined : archive);
    } else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const { port } = srv.address() as net.AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise<void>((resolve) => srv.close(() => resolve())),
  };
}

describe('downloadMongod (mongodb-memory-server-core against a loopback mirror)', function () {
  this.timeout(30_000);
  const variables = ['MONGOMS_DOWNLOAD_MIRROR', 'MONGOMS_USE_HTTP', 'MONGOMS_DOWNLOAD_DIR'];
  const saved = variables.map((name) => process.env[name]);
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'linkqr-download-'));
  after(() => {
    variables.forEach((name, i) => {
      if (saved[i] === undefined) delete process.env[name];
      else process.env[name] = saved[i];
    });
    fs.rmSync(work, { recursive: true, force: true });
  });

  it('finds a mongod build for this machine', async () => {
    expect(await unsupportedPlatform()).to.equal(undefined);
  });

  it('downloads, checks and unpacks mongod once, logging it, and later calls use the cached copy', async () => {
    const staging = path.join(work, 'mongodb-linux-x86_64-test', 'bin');
    fs.mkdirSync(staging, { recursive: true });
    const fake = fakeMongod();
    fs.copyFileSync(fake, path.join(staging, 'mongod'));
    fs.rmSync(path.dirname(fake), { recursive: true, force: true });
    execFileSync('tar', [
      'czf',
      path.join(work, 'archive.tgz'),
      '-C',
      work,
      'mongodb-linux-x86_64-test',
    ]);
    const host = await mirror(fs.readFileSync(path.join(work, 'archive.tgz')));
    process.env.MONGOMS_DOWNLOAD_MIRROR = host.url;
    process.env.MONGOMS_USE_HTTP = 'true';
    process.env.MONGOMS_DOWNLOAD_DIR = path.join(work, 'cache');
    const logged: Array<{ msg: string }> = [];
    const logger = createLogger('info', 'test', {
      write: (line: string) => {
        logged.push(JSON.parse(line) as (typeof logged)[number]);
      },
    });
    try {
      const binary = await downloadMongod(logger);
      expect(path.dirname(binary)).to.equal(path.join(work, 'cache'));
      await checkExecutable(binary);
      expect(fs.readFileSync(binary, 'utf8')).to.include('Waiting for connections');
      expect(
        host.requests.map((r) => r.replace(/\/[^/]+(\.tgz(\.md5)?)$/, '/<build>$1')),
      ).to.deep.equal([
        'HEAD /linux/<build>.tgz',
        'GET /linux/<build>.tgz',
        'GET /linux/<build>.tgz.md5',
      ]);
      expect(logged.map((l) => l.msg)).to.deep.equal([
        `downloading mongod ${downloadedMongodVersion} once into ${path.join(work, 'cache')}; later starts use this copy`,
      ]);
      expect(path.basename(binary)).to.include(downloadedMongodVersion);
      expect(process.env.npm_config_strict_ssl).to.equal(undefined);

      expect(await downloadMongod(logger)).to.equal(binary);
      expect(host.requests).to.have.length(3);
    } finally {
      DryMongoBinary.binaryCache.clear();
      await host.close();
    }
  });
});
