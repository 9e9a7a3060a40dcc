import { expect } from 'chai';
import {
  chooseEngine,
  engineLogLines,
  MongodBinaryError,
  type EngineProbes,
} from '../../src/shared/infra/mongo-engine/engine-choice';
import { rejection } from '../support/rejection';

/** Probes of a machine with nothing on it; each test gives it what it is about, and records calls. */
function machine(overrides: Partial<EngineProbes> = {}) {
  const calls: string[] = [];
  const probes: EngineProbes = {
    configuredBinary: undefined,
    checkExecutable: async (file) => {
      calls.push(`check ${file}`);
    },
    findOnPath: async (name) => {
      calls.push(`path ${name}`);
      return undefined;
    },
    unsupportedPlatform: async () => {
      calls.push('platform');
      return undefined;
    },
    download: async () => {
      calls.push('download');
      throw new Error('cannot reach fastdl.mongodb.org (getaddrinfo ENOTFOUND fastdl.mongodb.org)');
    },
    ...overrides,
  };
  return { probes, calls };
}

describe('chooseEngine', () => {
  it('runs the binary MONGOD_BINARY names, without looking anywhere else', async () => {
    const { probes, calls } = machine({ configuredBinary: '/opt/mongodb/bin/mongod' });
    expect(await chooseEngine(probes)).to.deep.equal({
      engine: 'mongod',
      binary: '/opt/mongodb/bin/mongod',
      source: 'MONGOD_BINARY',
    });
    expect(calls).to.deep.equal(['check /opt/mongodb/bin/mongod']);
  });

  it('refuses to start when MONGOD_BINARY names something that cannot run, instead of falling back', async () => {
    const { probes, calls } = machine({
      configuredBinary: '/nowhere/mongod',
      checkExecutable: async () => {
        throw new Error('no such file');
      },
    });
    const err = await rejection(chooseEngine(probes));
    expect(err).to.be.instanceOf(MongodBinaryError);
    expect((err as Error).message).to.equal(
      'MONGOD_BINARY=/nowhere/mongod cannot be run: no such file',
    );
    expect(calls).to.deep.equal([]);
  });

  it('runs the mongod on the PATH when MONGOD_BINARY is unset, without downloading', async () => {
    const { probes, calls } = machine({
      findOnPath: async (name) => {
        calls.push(`path ${name}`);
        return '/usr/bin/mongod';
      },
    });
    expect(await chooseEngine(probes)).to.deep.equal({
      engine: 'mongod',
      binary: '/usr/bin/mongod',
      source: 'PATH',
    });
    expect(calls).to.deep.equal(['path mongod']);
  });

  it('runs the downloaded mongod when none is on the PATH and the download succeeds', async () => {
    const binary = '/home/me/.cache/mongodb-binaries/mongod-x64-debian-8.2.6';
    const { probes, calls } = machine({
      download: async () => {
        calls.push('download');
        return binary;
      },
    });
    expect(await chooseEngine(probes)).to.deep.equal({
      engine: 'mongod',
      binary,
      source: 'download',
    });
    expect(calls).to.deep.equal(['path mongod', 'platform', 'download']);
  });

  it('falls back to the in-memory engine with every reason when the download is refused', async () => {
    const { probes, calls } = machine();
    expect(await chooseEngine(probes)).to.deep.equal({
      engine: 'memory',
      reasons: [
        'MONGOD_BINARY is not set',
        'no mongod on the PATH',
        'the mongod download failed: cannot reach fastdl.mongodb.org (getaddrinfo ENOTFOUND fastdl.mongodb.org)',
      ],
    });
    expect(calls).to.deep.equal(['path mongod', 'platform', 'download']);
  });

  it('falls back without trying a download on a platform MongoDB builds no mongod for', async () => {
    const { probes, calls } = machine({
      unsupportedPlatform: async () => {
        calls.push('platform');
        return 'Unknown Platform: "freebsd"';
      },
    });
    expect(await chooseEngine(probes)).to.deep.equal({
      engine: 'memory',
      reasons: [
        'MONGOD_BINARY is not set',
        'no mongod on the PATH',
        'no mongod build for this platform: Unknown Platform: "freebsd"',
      ],
    });
    expect(calls).to.deep.equal(['path mongod', 'platform']);
  });

  it('keeps a multi-line download error on one line', async () => {
    const { probes } = machine({
      download: async () => {
        throw new Error('Download failed for url "https://x/y.tgz", Details:\n  Status: 403');
      },
    });
    const choice = await chooseEngine(probes);
    expect(choice.engine === 'memory' && choice.reasons[2]).to.equal(
      'the mongod download failed: Download failed for url "https://x/y.tgz", Details: Status: 403',
    );
  });
});

describe('engineLogLines', () => {
  const uri = 'mongodb://127.0.0.1:40001/linkqr';
  const dataDir = '/srv/linkqr/data/mongodb';

  for (const [source, phrase] of [
    ['MONGOD_BINARY', 'the mongod named by MONGOD_BINARY (/opt/mongod)'],
    ['PATH', 'the mongod found on the PATH (/opt/mongod)'],
    ['download', 'the mongod downloaded once and cached at /opt/mongod'],
  ] as const) {
    it(`says a mongod from ${source} runs, where its data lives, and how to move to one's own MongoDB`, () => {
      const lines = engineLogLines(
        { engine: 'mongod', binary: '/opt/mongod', source },
        { uri, dataDir },
      );
      expect(lines).to.deep.equal([
        {
          level: 'info',
          fields: { engine: 'mongod', source, binary: '/opt/mongod', dataDir, uri },
          msg: `MONGODB_URI is not set: running ${phrase} with its data in ${dataDir}, kept between runs.`,
        },
        {
          level: 'info',
          fields: { engine: 'mongod' },
          msg: 'For a MongoDB of your own, set MONGODB_URI (`docker compose up` runs one with a persistent volume).',
        },
      ]);
    });
  }

  it('warns that the in-memory engine loses data, with the reasons and the ways to keep it', () => {
    const reasons = [
      'MONGOD_BINARY is not set',
      'no mongod on the PATH',
      'the mongod download failed: offline',
    ];
    const lines = engineLogLines({ engine: 'memory', reasons }, { uri });
    expect(lines).to.deep.equal([
      {
        level: 'warn',
        fields: { engine: 'memory', reasons, uri },
        msg:
          'MONGODB_URI is not set and no mongod could be had (MONGOD_BINARY is not set; no mongod on the PATH; ' +
          'the mongod download failed: offline): using the embedded in-memory engine. ' +
          'Data is NOT persisted and is lost when the service stops.',
      },
      {
        level: 'warn',
        fields: { engine: 'memory' },
        msg:
          'To keep data, put mongod on the PATH or name it in MONGOD_BINARY, or let npm start download it ' +
          'once on a machine with internet access. For a MongoDB of your own, set MONGODB_URI ' +
          '(`docker compose up` runs one with a persistent volume).',
      },
    ]);
  });
});
