import { execFile, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** A port free now, whose cluster bus port (+10000) is free too. */
async function portPair(): Promise<number> {
  const tryListen = (port: number) =>
    new Promise<boolean>((resolve) => {
      const server = net.createServer();
      server.once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
    });
  for (let i = 0; i < 50; i += 1) {
    const port = 20_000 + Math.floor(Math.random() * 30_000);
    if ((await tryListen(port)) && (await tryListen(port + 10_000))) return port;
  }
  throw new Error('no free port pair for a cluster node');
}

async function cli(port: number, ...args: string[]): Promise<string> {
  const { stdout } = await run('redis-cli', ['-p', String(port), ...args], { timeout: 10_000 });
  return stdout;
}

async function until(check: () => Promise<boolean>, what: string, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** One redis-server (or sentinel) child of this test, stopped by its pid. */
class Server {
  constructor(
    readonly port: number,
    readonly child: ChildProcess,
  ) {}

  get alive(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  async kill(): Promise<void> {
    if (!this.alive) return;
    await new Promise<void>((done) => {
      this.child.once('exit', () => done());
      this.child.kill('SIGKILL');
    });
  }
}

function startServer(port: number, dir: string, args: string[]): Server {
  const child = spawn(
    'redis-server',
    [...args, '--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { cwd: dir, stdio: 'ignore' },
  );
  return new Server(port, child);
}

/**
 * A private Redis Cluster (3 masters, 3 replicas, node timeout 1 s so a failover takes a couple
 * of seconds), for tests that run the service on a cluster. Never the shared Redis.
 */
export class TestCluster {
  private constructor(
    private readonly dir: string,
    readonly servers: Server[],
  ) {}

  static async start(): Promise<TestCluster> {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'linkqr-cluster-'));
    const servers: Server[] = [];
    for (let i = 0; i < 6; i += 1) {
      const port = await portPair();
      const nodeDir = path.join(dir, String(port));
      fs.mkdirSync(nodeDir);
      servers.push(
        startServer(port, nodeDir, [
          '--cluster-enabled',
          'yes',
          '--cluster-node-timeout',
          '1000',
          '--cluster-config-file',
          'nodes.conf',
          // Replicas sync at once instead of after diskless sync's 5 s delay.
          '--repl-diskless-sync-delay',
          '0',
        ]),
      );
    }
    const cluster = new TestCluster(dir, servers);
    try {
      for (const s of servers)
        await until(async () => (await cli(s.port, 'PING')).includes('PONG'), `node ${s.port}`);
      await run(
        'redis-cli',
        [
          '--cluster',
          'create',
          ...servers.map((s) => `127.0.0.1:${s.port}`),
          '--cluster-replicas',
          '1',
          '--cluster-yes',
        ],
        { timeout: 30_000 },
      );
      await cluster.waitHealthy();
      await cluster.waitReplicasInSync();
    } catch (err) {
      await cluster.stop();
      throw err;
    }
    return cluster;
  }

  /** `REDIS_CLUSTER_NODES` for the service: every node a seed. */
  get nodes(): string {
    return this.servers.map((s) => `127.0.0.1:${s.port}`).join(',');
  }

  /**
   * Every replica has finished its first sync: a replica that never synced refuses to fail over
   * (its data counts as too old), so a master killed before that would never be replaced.
   */
  async waitReplicasInSync(timeoutMs = 60_000): Promise<void> {
    await until(
      async () => {
        for (const s of this.servers.filter((x) => x.alive)) {
          const info = await cli(s.port, 'INFO', 'replication');
          if (info.includes('role:slave') && !info.includes('master_link_status:up')) return false;
        }
        return true;
      },
      'the replicas to sync',
      timeoutMs,
    );
  }

  /** Every live node says the cluster is ok, with three masters. */
  async waitHealthy(timeoutMs = 60_000): Promise<void> {
    await until(
      async () => {
        for (const s of this.servers.filter((x) => x.alive)) {
          if (!(await cli(s.port, 'CLUSTER', 'INFO')).includes('cluster_state:ok')) return false;
        }
        return (await this.masters()).length === 3;
      },
      'the cluster to be ok',
      timeoutMs,
    );
  }

  /** The ports of the live masters that serve slots. */
  async masters(): Promise<number[]> {
    const live = this.servers.find((s) => s.alive);
    if (!live) return [];
    const nodes = await cli(live.port, 'CLUSTER', 'NODES');
    return nodes
      .split('\n')
      .map((line) => line.split(' '))
      .filter((p) => /master/.test(p[2] ?? '') && !/fail/.test(p[2] ?? '') && p.length > 8)
      .map((p) => p.join(' '))
      .map((line) => Number(/:(\d+)@/.exec(line)?.[1]));
  }

  /** The port of the master serving a key's slot. */
  async masterOf(key: string): Promise<number> {
    const live = this.servers.find((s) => s.alive) as Server;
    const slot = Number((await cli(live.port, 'CLUSTER', 'KEYSLOT', key)).trim());
    const nodes = await cli(live.port, 'CLUSTER', 'NODES');
    for (const line of nodes.split('\n')) {
      const parts = line.split(' ');
      if (!/master/.test(parts[2] ?? '') || /fail/.test(parts[2] ?? '')) continue;
      for (const range of parts.slice(8)) {
        const [from, to = from] = range.split('-').map(Number);
        if (from !== undefined && to !== undefined && slot >= from && slot <= to) {
          return Number(/:(\d+)@/.exec(parts[1] ?? '')?.[1]);
        }
      }
    }
    throw new Error(`no master serves ${key}`);
  }

  /** SIGKILLs the node on that port (a machine lost). */
  async kill(port: number): Promise<void> {
    await this.servers.find((s) => s.port === port)?.kill();
  }

  async stop(): Promise<void> {
    await Promise.all(this.servers.map((s) => s.kill()));
    fs.rmSync(this.dir, { recursive: true, force: true });
  }
}

/** A private primary, its replica and sentinels watching them (`mymaster`, quorum 1). */
export class TestSentinel {
  readonly name = 'mymaster';

  private constructor(
    private readonly dir: string,
    readonly primary: Server,
    readonly replica: Server,
    readonly sentinels: Server[],
  ) {}

  static async start(sentinelCount = 1): Promise<TestSentinel> {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'linkqr-sentinel-'));
    const primary = startServer(await portPair(), dir, []);
    await until(async () => (await cli(primary.port, 'PING')).includes('PONG'), 'the primary');
    const replica = startServer(await portPair(), dir, [
      '--replicaof',
      '127.0.0.1',
      String(primary.port),
    ]);
    const sentinels: Server[] = [];
    for (let i = 0; i < sentinelCount; i += 1) {
      const port = await portPair();
      const conf = path.join(dir, `sentinel-${port}.conf`);
      fs.writeFileSync(
        conf,
        [
          `port ${port}`,
          'bind 127.0.0.1',
          `sentinel monitor mymaster 127.0.0.1 ${primary.port} 1`,
          'sentinel down-after-milliseconds mymaster 1000',
          'sentinel failover-timeout mymaster 5000',
          'sentinel parallel-syncs mymaster 1',
          '',
        ].join('\n'),
      );
      const child = spawn('redis-server', [conf, '--sentinel'], { cwd: dir, stdio: 'ignore' });
      sentinels.push(new Server(port, child));
    }
    const setup = new TestSentinel(dir, primary, replica, sentinels);
    try {
      await until(
        async () =>
          (await cli(replica.port, 'INFO', 'replication')).includes('master_link_status:up'),
        'the replica to sync',
      );
      for (const s of sentinels) {
        await until(
          async () =>
            (await cli(s.port, 'SENTINEL', 'REPLICAS', 'mymaster')).includes(String(replica.port)),
          'the sentinel to see the replica',
        );
      }
    } catch (err) {
      await setup.stop();
      throw err;
    }
    return setup;
  }

  /** `REDIS_SENTINELS` for the service. */
  get addresses(): string {
    return this.sentinels.map((s) => `127.0.0.1:${s.port}`).join(',');
  }

  /** The port the sentinels name as primary now. */
  async primaryPort(): Promise<number> {
    const reply = await cli(
      this.sentinels[0]!.port,
      'SENTINEL',
      'GET-MASTER-ADDR-BY-NAME',
      'mymaster',
    );
    return Number(reply.trim().split('\n')[1]);
  }

  async stop(): Promise<void> {
    await Promise.all([this.primary, this.replica, ...this.sentinels].map((s) => s.kill()));
    fs.rmSync(this.dir, { recursive: true, force: true });
  }
}
