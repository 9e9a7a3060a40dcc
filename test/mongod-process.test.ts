import { expect } from 'chai';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../src/config';
import { createLogger } from '../src/shared/infra/logger';
import type { EngineProbes } from '../src/shared/infra/mongo-engine/engine-choice';
import { startLocalEngine } from '../src/shared/infra/mongo-engine/local-engine';
import {
  MongodStartError,
  startMongod,
  type MongodOptions,
} from '../src/shared/infra/mongo-engine/mongod-process';
import {
  ensureReplicaSet,
  type ReplicaSetAdmin,
} from '../src/shared/infra/mongo-engine/mongod-replset';
import { rejection } from './support/rejection';
import { fakeMongod, readFakeCommands, readFakeStart } from './support/fake-mongod';

const made: string[] = [];
after(() => {
  for (const dir of made) fs.rmSync(dir, { recursive: true, force: true });
});

function runtimeDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'linkqr-mongod-'));
  made.push(dir);
  return dir;
}

function options(binary: string, dir: string, extra: Partial<MongodOptions> = {}): MongodOptions {
  return {
    binary,
    dataDir: path.join(dir, 'mongodb'),
    logFile: path.join(dir, 'mongod.log'),
    dbName: 'linkqr',
    ...extra,
  };
}

function connects(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

describe('mongod process (with a stand-in mongod, since none can be installed here)', function () {
  this.timeout(30_000);
  const binary = fakeMongod();
  made.push(path.dirname(binary));

  it('starts on a free loopback port with its data directory and wiredTiger, and stops it with SIGTERM, waiting for the exit', async () => {
    const dir = runtimeDir();
    const opts = options(binary, dir);
    const mongod = await startMongod(opts);
    const port = Number(/^mongodb:\/\/127\.0\.0\.1:(\d+)\/linkqr$/.exec(mongod.uri)?.[1]);
    expect(port).to.be.above(0);
    expect(await connects(port)).to.equal(true);
    const { args } = readFakeStart(opts.dataDir);
    expect(args).to.deep.equal([
      '--dbpath',
      opts.dataDir,
      '--port',
      String(port),
      '--bind_ip',
      '127.0.0.1',
      '--storageEngine',
      'wiredTiger',
    ]);

    expect(await mongod.stop()).to.deep.equal({ code: 0, signal: null, forced: false });
    // mongod empties its lock file on a clean shutdown; stop() resolved only after that exit.
    expect(fs.readFileSync(path.join(opts.dataDir, 'fake-stopped'), 'utf8')).to.equal('SIGTERM');
    expect(fs.readFileSync(path.join(opts.dataDir, 'mongod.lock'), 'utf8')).to.equal('');
    expect(await mongod.stop()).to.deep.equal({ code: 0, signal: null, forced: false });
  });

  it('keeps mongod output in its log file under RUNTIME_DIR', async () => {
    const dir = runtimeDir();
    const mongod = await startMongod(options(binary, dir));
    await mongod.stop();
    expect(fs.readFileSync(path.join(dir, 'mongod.log'), 'utf8')).to.include(
      'Waiting for connections',
    );
  });

  it('leaves the lock file and data of a crashed run to mongod to recover, deleting nothing', async () => {
    const dir = runtimeDir();
    const opts = options(binary, dir);
    fs.mkdirSync(opts.dataDir, { recursive: true });
    fs.writeFileSync(path.join(opts.dataDir, 'mongod.lock'), '4242\n');
    fs.writeFileSync(path.join(opts.dataDir, 'collection-0-1.wt'), 'data');
    const mongod = await startMongod(opts);
    expect(readFakeStart(opts.dataDir).lockBefore).to.equal('4242\n');
    expect(fs.readFileSync(path.join(opts.dataDir, 'collection-0-1.wt'), 'utf8')).to.equal('data');
    await mongod.stop();
  });

  it("fails with mongod's own reason, and where to look, when another mongod holds the data directory", async () => {
    const dir = runtimeDir();
    const opts = options(binary, dir);
    fs.mkdirSync(opts.dataDir, { recursive: true });
    fs.writeFileSync(path.join(opts.dataDir, 'fake-mode'), 'in-use');
    const err = await rejection(startMongod(opts));
    expect(err).to.be.instanceOf(MongodStartError);
    expect(err.message).to.include(`mongod (${binary}) exited during start-up with code 100`);
    expect(err.message).to.include('DBException in initAndListen, terminating: DBPathInUse');
    expect(err.message).to.include(
      `another mongod is using ${opts.dataDir}: a linkqr still running, or one left by a linkqr that was killed; its pid is in ${path.join(opts.dataDir, 'mongod.lock')}`,
    );
    expect(err.message).to.include(`its log is ${opts.logFile}`);
  });

  it('kills a mongod that does not stop within the stop timeout, and says so', async () => {
    const dir = runtimeDir();
    const opts = options(binary, dir, { stopTimeoutMs: 300 });
    fs.mkdirSync(opts.dataDir, { recursive: true });
    fs.writeFileSync(path.join(opts.dataDir, 'fake-mode'), 'stubborn');
    const mongod = await startMongod(opts);
    expect(await mongod.stop()).to.deep.equal({ code: null, signal: 'SIGKILL', forced: true });
  });

  it('fails clearly when the binary cannot be started at all', async () => {
    const dir = runtimeDir();
    const missing = path.join(dir, 'no-such-mongod');
    const err = await rejection(startMongod(options(missing, dir)));
    expect(err).to.be.instanceOf(MongodStartError);
    expect(err.message).to.include(
      `mongod (${missing}) could not be started (spawn ${missing} ENOENT)`,
    );
  });
});

describe('startLocalEngine', function () {
  this.timeout(30_000);

  function capture() {
    const lines: Array<{ level: number; msg: string; engine?: string; dataDir?: string }> = [];
    const logger = createLogger('info', 'test', {
      write: (line: string) => {
        lines.push(JSON.parse(line) as (typeof lines)[number]);
      },
    });
    return { lines, logger };
  }

  function probes(overrides: Partial<EngineProbes>): EngineProbes {
    return {
      configuredBinary: undefined,
      checkExecutable: async () => undefined,
      findOnPath: async () => undefined,
      unsupportedPlatform: async () => undefined,
      download: async () => {
        throw new Error('cannot reach fastdl.mongodb.org');
      },
      ...overrides,
    };
  }

  it('runs the mongod it found with its data under RUNTIME_DIR/mongodb, and logs which engine runs and where', async () => {
    const dir = runtimeDir();
    const binary = fakeMongod();
    made.push(path.dirname(binary));
    const config = loadConfig({ RUNTIME_DIR: dir });
    const { lines, logger } = capture();
    const engine = await startLocalEngine(
      config,
      logger,
      probes({ findOnPath: async () => binary }),
    );
    expect(engine.engine).to.equal('mongod');
    expect(engine.uri).to.match(/^mongodb:\/\/127\.0\.0\.1:\d+\/linkqr\?replicaSet=rs0$/);
    const { args } = readFakeStart(path.join(dir, 'mongodb'));
    expect(args[1]).to.equal(path.join(dir, 'mongodb'));
    // A single-member replica set, as docker compose runs (issue 22).
    expect(args.slice(-2)).to.deep.equal(['--replSet', 'rs0']);
    expect(lines.map((l) => [l.level, l.engine, l.msg])).to.deep.equal([
      [
        30,
        'mongod',
        `MONGODB_URI is not set: running the mongod found on the PATH (${binary}) with its data in ${path.join(dir, 'mongodb')}, kept between runs.`,
      ],
      [
        30,
        'mongod',
        'For a MongoDB of your own, set MONGODB_URI (`docker compose up` runs one with a persistent volume).',
      ],
      [
        30,
        'mongod',
        "mongod runs as the single-member replica set rs0 (initiated on this first start): transactions and change streams work as on docker compose's.",
      ],
    ]);
    await engine.stop();
    expect(lines.at(-1)?.msg).to.equal('mongod stopped');
    expect(fs.readFileSync(path.join(dir, 'mongodb', 'fake-stopped'), 'utf8')).to.equal('SIGTERM');
  });

  it('falls back to the in-memory engine with a warning that carries the reasons', async () => {
    const { lines, logger } = capture();
    const engine = await startLocalEngine(
      loadConfig({ RUNTIME_DIR: runtimeDir() }),
      logger,
      probes({}),
    );
    try {
      expect(engine.engine).to.equal('memory');
      expect(lines.map((l) => [l.level, l.engine])).to.deep.equal([
        [40, 'memory'],
        [40, 'memory'],
      ]);
      expect(lines[0]?.msg).to.include(
        '(MONGOD_BINARY is not set; no mongod on the PATH; the mongod download failed: cannot reach fastdl.mongodb.org)',
      );
    } finally {
      await engine.stop();
    }
  });
});

describe('the local mongod as a single-member replica set (issue 22)', function () {
  this.timeout(30_000);
  const binary = fakeMongod();
  made.push(path.dirname(binary));

  function replicaOptions(dir: string, extra: Partial<MongodOptions> = {}): MongodOptions {
    return options(binary, dir, {
      replSet: 'rs0',
      portFile: path.join(dir, 'mongod.port'),
      primaryTimeoutMs: 5_000,
      ...extra,
    });
  }

  const portOf = (uri: string) => Number(/^mongodb:\/\/127\.0\.0\.1:(\d+)\//.exec(uri)?.[1]);
  const named = (commands: Array<Record<string, unknown>>, name: string) =>
    commands.filter((c) => Object.keys(c)[0] === name);

  it('starts with --replSet, initiates the set with this member on the first start, and hands out a URI naming the set once it is primary', async () => {
    const dir = runtimeDir();
    const opts = replicaOptions(dir);
    const mongod = await startMongod(opts);
    try {
      const port = portOf(mongod.uri);
      expect(mongod.uri).to.equal(`mongodb://127.0.0.1:${port}/linkqr?replicaSet=rs0`);
      expect(mongod.replicaSet).to.deep.equal({ name: 'rs0', step: 'initiated' });
      expect(readFakeStart(opts.dataDir).args.slice(-2)).to.deep.equal(['--replSet', 'rs0']);
      const commands = readFakeCommands(opts.dataDir);
      expect(named(commands, 'replSetInitiate')).to.deep.equal([
        { replSetInitiate: { _id: 'rs0', members: [{ _id: 0, host: `127.0.0.1:${port}` }] } },
      ]);
      // It asked whether this member is primary after initiating, and was told yes.
      const order = commands.map((c) => Object.keys(c)[0]);
      expect(order.lastIndexOf('hello')).to.be.above(order.indexOf('replSetInitiate'));
      expect(fs.readFileSync(opts.portFile as string, 'utf8')).to.equal(`${port}\n`);
    } finally {
      await mongod.stop();
    }
  });

  it('on a later start takes the remembered port and leaves the set as it is', async () => {
    const dir = runtimeDir();
    const opts = replicaOptions(dir);
    const first = await startMongod(opts);
    await first.stop();
    const second = await startMongod(opts);
    try {
      expect(portOf(second.uri)).to.equal(portOf(first.uri));
      expect(second.replicaSet).to.deep.equal({ name: 'rs0', step: 'unchanged' });
      const commands = readFakeCommands(opts.dataDir);
      expect(named(commands, 'replSetInitiate')).to.have.length(1);
      expect(named(commands, 'replSetReconfig')).to.deep.equal([]);
    } finally {
      await second.stop();
    }
  });

  it('when the remembered port is taken, starts on another and moves the member there by a forced reconfiguration', async () => {
    const dir = runtimeDir();
    const opts = replicaOptions(dir);
    const first = await startMongod(opts);
    await first.stop();
    const oldPort = portOf(first.uri);
    const squatter = net.createServer();
    await new Promise<void>((resolve) => squatter.listen(oldPort, '127.0.0.1', resolve));
    try {
      const second = await startMongod(opts);
      try {
        const port = portOf(second.uri);
        expect(port).to.not.equal(oldPort);
        expect(second.uri).to.equal(`mongodb://127.0.0.1:${port}/linkqr?replicaSet=rs0`);
        expect(second.replicaSet).to.deep.equal({ name: 'rs0', step: 'moved' });
        const reconfigs = named(readFakeCommands(opts.dataDir), 'replSetReconfig');
        expect(reconfigs).to.deep.equal([
          {
            replSetReconfig: {
              _id: 'rs0',
              members: [{ _id: 0, host: `127.0.0.1:${port}` }],
              version: 2,
            },
            force: true,
          },
        ]);
        expect(fs.readFileSync(opts.portFile as string, 'utf8')).to.equal(`${port}\n`);
      } finally {
        await second.stop();
      }
    } finally {
      await new Promise((resolve) => squatter.close(resolve));
    }
  });

  it('fails naming the set and the log, and stops mongod, when the member never becomes primary', async () => {
    const dir = runtimeDir();
    const opts = replicaOptions(dir, { primaryTimeoutMs: 600 });
    fs.mkdirSync(opts.dataDir, { recursive: true });
    fs.writeFileSync(path.join(opts.dataDir, 'fake-mode'), 'no-primary');
    const err = await rejection(startMongod(opts));
    expect(err).to.be.instanceOf(MongodStartError);
    expect(err.message).to.equal(
      `mongod started but its replica set "rs0" could not be made ready (mongod did not become the primary of replica set "rs0" within 600 ms); its log is ${opts.logFile}`,
    );
    expect(fs.readFileSync(path.join(opts.dataDir, 'fake-stopped'), 'utf8')).to.equal('SIGTERM');
  });

  describe('ensureReplicaSet (the commands, without a server)', () => {
    function admin(config: Record<string, unknown>) {
      const sent: Array<Record<string, unknown>> = [];
      const answer: ReplicaSetAdmin = {
        command: async (doc) => {
          sent.push(doc);
          if ('replSetGetConfig' in doc) return { config, ok: 1 };
          if ('hello' in doc) return { isWritablePrimary: true, ok: 1 };
          return { ok: 1 };
        },
      };
      return { sent, answer };
    }
    const host = '127.0.0.1:40000';

    it('leaves a set grown to several members alone, whatever their addresses', async () => {
      const { sent, answer } = admin({
        _id: 'rs0',
        version: 3,
        members: [
          { _id: 0, host: '127.0.0.1:1' },
          { _id: 1, host: 'other:27017' },
        ],
      });
      expect(await ensureReplicaSet(answer, { name: 'rs0', host, primaryTimeoutMs: 100 })).to.equal(
        'unchanged',
      );
      expect(sent.map((d) => Object.keys(d)[0])).to.deep.equal(['replSetGetConfig', 'hello']);
    });

    it('refuses a data directory that belongs to another set, changing nothing', async () => {
      const { sent, answer } = admin({ _id: 'other', version: 1, members: [{ _id: 0, host }] });
      const err = await rejection(
        ensureReplicaSet(answer, { name: 'rs0', host, primaryTimeoutMs: 100 }),
      );
      expect(err.message).to.equal('the data directory belongs to replica set "other", not "rs0"');
      expect(sent.map((d) => Object.keys(d)[0])).to.deep.equal(['replSetGetConfig']);
    });
  });
});
