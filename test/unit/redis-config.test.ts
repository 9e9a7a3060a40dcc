import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { Cluster, Redis } from 'ioredis';
import { ConfigError, loadConfig } from '../../src/config';
import {
  createRedisClient,
  duplicateRedisClient,
  scriptSafeSendCommand,
  standaloneRedis,
  waitForRedis,
} from '../../src/shared/infra/redis-connections';
import { RedisKeys } from '../../src/shared/infra/redis-keys';
import { PrivateRedis } from '../support/private-redis';

describe('Redis configuration and connections', () => {
  it('is one standalone server by default, the URL as given', () => {
    const { redis } = loadConfig({});
    expect(redis).to.deep.include({
      mode: 'standalone',
      url: 'redis://127.0.0.1:6379',
      tls: false,
      password: undefined,
    });
    expect(loadConfig({}).visitStreamPartitions).to.equal(4);
  });

  it('takes TLS from rediss:// or REDIS_TLS, and the URL credentials over REDIS_PASSWORD', () => {
    expect(loadConfig({ REDIS_URL: 'rediss://cache.example:6380' }).redis.tls).to.equal(true);
    expect(loadConfig({ REDIS_TLS: 'true' }).redis.tls).to.equal(true);
    const fromUrl = loadConfig({
      REDIS_URL: 'redis://app:s%40cret@cache.example:6379',
      REDIS_PASSWORD: 'other',
    }).redis;
    expect(fromUrl).to.deep.include({ username: 'app', password: 's@cret' });
    expect(loadConfig({ REDIS_PASSWORD: 'pw' }).redis.password).to.equal('pw');
  });

  it('runs on a cluster when REDIS_CLUSTER_NODES is set, whatever REDIS_URL says', () => {
    const { redis } = loadConfig({
      REDIS_URL: 'redis://ignored:6379',
      REDIS_CLUSTER_NODES: '10.0.0.1:7000, redis-2:7001,[::1]:7002',
      REDIS_PASSWORD: 'pw',
      REDIS_TLS: '1',
    });
    expect(redis.mode).to.equal('cluster');
    expect(redis.nodes).to.deep.equal([
      { host: '10.0.0.1', port: 7000 },
      { host: 'redis-2', port: 7001 },
      { host: '::1', port: 7002 },
    ]);
    expect(redis).to.deep.include({ password: 'pw', tls: true });
  });

  it('follows Sentinel with REDIS_SENTINELS and REDIS_SENTINEL_NAME', () => {
    const { redis } = loadConfig({
      REDIS_SENTINELS: 's1:26379,s2:26379',
      REDIS_SENTINEL_NAME: 'mymaster',
      REDIS_SENTINEL_PASSWORD: 'spw',
    });
    expect(redis).to.deep.include({ mode: 'sentinel', sentinelName: 'mymaster' });
    expect(redis.sentinelPassword).to.equal('spw');
    expect(redis.nodes).to.have.length(2);
  });

  it('refuses contradictory or malformed Redis settings, naming the variable', () => {
    const cases: Array<[NodeJS.ProcessEnv, RegExp]> = [
      [{ REDIS_CLUSTER_NODES: 'a:1', REDIS_SENTINELS: 'b:2' }, /not both/],
      [{ REDIS_SENTINELS: 'b:26379' }, /REDIS_SENTINEL_NAME is required/],
      [{ REDIS_CLUSTER_NODES: 'a' }, /REDIS_CLUSTER_NODES: a is not host:port/],
      [{ REDIS_CLUSTER_NODES: 'a:70000' }, /REDIS_CLUSTER_NODES: a:70000 is not host:port/],
      [{ REDIS_SENTINELS: ' , ', REDIS_SENTINEL_NAME: 'm' }, /REDIS_SENTINELS lists no host:port/],
      [{ REDIS_TLS: 'yes' }, /REDIS_TLS/],
      [{ VISIT_STREAM_PARTITIONS: '0' }, /VISIT_STREAM_PARTITIONS/],
      [{ VISIT_STREAM_PARTITIONS: '65' }, /VISIT_STREAM_PARTITIONS/],
    ];
    for (const [env, message] of cases) {
      expect(() => loadConfig(env), JSON.stringify(env))
        .to.throw(ConfigError)
        .with.property('message')
        .that.matches(message);
    }
  });

  it('accepts a MongoDB replica set URI with several hosts, and still refuses other schemes', () => {
    const uri = 'mongodb://m1:27017,m2:27017,m3:27017/linkqr?replicaSet=rs0';
    expect(loadConfig({ MONGODB_URI: uri }).mongodbUri).to.equal(uri);
    expect(() => loadConfig({ MONGODB_URI: 'http://m1' })).to.throw(ConfigError, /MONGODB_URI/);
  });

  it('builds a cluster client with the credentials on every node, without connecting early', () => {
    const config = loadConfig({
      REDIS_CLUSTER_NODES: '127.0.0.1:1,127.0.0.1:2',
      REDIS_PASSWORD: 'pw',
      REDIS_TLS: 'true',
    }).redis;
    const client = createRedisClient(config, 'cli');
    try {
      expect(client).to.be.instanceOf(Cluster);
      const cluster = client as Cluster;
      expect(cluster.options.redisOptions).to.deep.include({ password: 'pw', tls: {} });
      expect(cluster.options.lazyConnect).to.equal(true);
      expect(cluster.status).to.equal('wait');
      const request = createRedisClient(config, 'request', { lazyConnect: true }) as Cluster;
      expect(request.options).to.deep.include({
        enableOfflineQueue: false,
        enableAutoPipelining: true,
      });
      const sub = duplicateRedisClient(request, { enableOfflineQueue: true, lazyConnect: true });
      expect(sub).to.be.instanceOf(Cluster);
      expect((sub as Cluster).options.redisOptions).to.deep.include({ password: 'pw' });
      expect((sub as Cluster).options.enableOfflineQueue).to.equal(true);
      request.disconnect();
      sub.disconnect();
    } finally {
      client.disconnect();
    }
  });

  it('builds a Sentinel client that asks the sentinels for the primary', () => {
    const config = loadConfig({
      REDIS_SENTINELS: '127.0.0.1:1',
      REDIS_SENTINEL_NAME: 'mymaster',
      REDIS_PASSWORD: 'pw',
    }).redis;
    const client = createRedisClient(config, 'cli') as Redis;
    try {
      expect(client).to.be.instanceOf(Redis);
      expect(client.options).to.deep.include({ name: 'mymaster', password: 'pw' });
      expect(client.options.sentinels).to.deep.equal([{ host: '127.0.0.1', port: 1 }]);
    } finally {
      client.disconnect();
    }
  });

  it('hash-tags the keys that must share a slot, and BullMQ prefix with them', () => {
    const keys = new RedisKeys('linkqr:');
    expect(keys.slotted('bull')).to.equal('linkqr:{bull}');
    expect(keys.slotted('links:pw:7', 'ip', 'abc')).to.equal('linkqr:{links:pw:7}:ip:abc');
    expect(keys.key('a', 1)).to.equal('linkqr:a:1');
  });

  it('nothing but the connection module opens a Redis connection', () => {
    const root = path.resolve(__dirname, '..', '..');
    const offenders: string[] = [];
    const walk = (dir: string) => {
      for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
        const file = path.join(dir, entry.name);
        if (entry.isDirectory()) walk(file);
        else if (file.endsWith('.ts') && !file.endsWith('redis-connections.ts')) {
          const text = fs.readFileSync(file, 'utf8');
          if (/new (Redis|IORedis|Cluster)\(|\.duplicate\(/.test(text)) offenders.push(file);
        }
      }
    };
    walk(path.join(root, 'src'));
    walk(path.join(root, 'workers'));
    expect(offenders).to.deep.equal([]);
  });

  describe('scripts sent through rate-limit-redis', () => {
    let server: PrivateRedis;
    before(async () => {
      server = await PrivateRedis.start();
    });
    after(() => server.stop());

    it('computes SCRIPT LOAD locally and falls back to EVAL on a node without the script', async () => {
      const redis = standaloneRedis(server.url, 'request');
      try {
        await waitForRedis(redis);
        const send = scriptSafeSendCommand(redis);
        const script = 'return tonumber(ARGV[1]) + 1';
        const sha = await send('SCRIPT', 'LOAD', script);
        expect(sha).to.match(/^[0-9a-f]{40}$/);
        // Never loaded on the server (as on a cluster node or a promoted replica): still answers.
        expect(await redis.script('EXISTS', sha as string)).to.deep.equal([0]);
        expect(await send('EVALSHA', sha as string, '1', 'k', '41')).to.equal(42);
        // EVAL cached it there: the next call is an EVALSHA that succeeds.
        expect(await redis.script('EXISTS', sha as string)).to.deep.equal([1]);
        expect(await send('EVALSHA', sha as string, '1', 'k', '1')).to.equal(2);
        const unknown = '0'.repeat(40);
        let error: unknown;
        await send('EVALSHA', unknown, '0').catch((err: unknown) => (error = err));
        expect(String(error)).to.match(/NOSCRIPT/);
      } finally {
        redis.disconnect();
      }
    });
  });
});
