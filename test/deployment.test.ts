import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse } from 'yaml';
import { configVariables, loadConfig } from '../src/config';
import { loadProcessConfig } from '../src/shared/infra/process-config';

const root = path.resolve(__dirname, '..');
const read = (file: string) => fs.readFileSync(path.join(root, file), 'utf8');

interface ComposeService {
  image?: string;
  profiles?: string[];
  build?: unknown;
  command?: string[];
  environment?: Record<string, string | null>;
  volumes?: string[];
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: unknown;
}

/**
 * The environment docker compose gives a container when the shell sets only `shell`: `${NAME:-d}`
 * falls back to d, `${NAME:?message}` fails without NAME, and a bare `NAME:` passes NAME through.
 */
function containerEnv(
  raw: Record<string, string | null>,
  shell: Record<string, string>,
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw)) {
    if (value === null) {
      if (shell[name] !== undefined) env[name] = shell[name];
      continue;
    }
    env[name] = String(value).replace(
      /\$\{([A-Z_]+):([-?])([^}]*)\}/g,
      (_m, variable: string, kind: string, rest: string) => {
        if (shell[variable] !== undefined) return shell[variable];
        if (kind === '-') return rest;
        throw new Error(`compose refuses to start: ${rest}`);
      },
    );
  }
  return env;
}

describe('deployment files', () => {
  const compose = parse(read('docker-compose.yml'), { merge: true }) as {
    services: Record<string, ComposeService>;
    volumes: Record<string, unknown>;
  };

  it('runs api, worker, MongoDB and Redis', () => {
    // Those of the Redis Cluster profile are checked below.
    const redisCluster = /^(redis-node-\d|redis-cluster-init|api-\d|worker-\d|proxy)$/;
    expect(
      Object.keys(compose.services)
        .filter((name) => !redisCluster.test(name))
        .sort(),
    ).to.deep.equal([
      'api',
      'migrate',
      'mongo',
      'mongo-init',
      'mongo-init-cluster',
      'mongo2',
      'mongo3',
      'redis',
      'worker',
    ]);
    expect(compose.services.api?.command).to.deep.equal([
      'node',
      '--heap-growing-percent=50',
      'dist/src/main.js',
    ]);
    expect(compose.services.worker?.command).to.deep.equal([
      'node',
      '--heap-growing-percent=50',
      'dist/workers/main.js',
    ]);
    expect(fs.existsSync(path.join(root, 'src/main.ts'))).to.equal(true);
    expect(fs.existsSync(path.join(root, 'workers/main.ts'))).to.equal(true);
  });

  it('has a cluster profile: 6 Redis Cluster nodes, 2 APIs behind a proxy, 2 workers on the replica set', () => {
    const inProfile = Object.entries(compose.services)
      .filter(([, s]) => s.profiles?.includes('cluster'))
      .map(([name]) => name);
    expect(inProfile.filter((n) => n.startsWith('redis-node-'))).to.have.length(6);
    expect(inProfile).to.include.members(['api-1', 'api-2', 'worker-1', 'worker-2', 'proxy']);
    expect(inProfile).to.include.members(['redis-cluster-init']);
    expect(JSON.stringify(compose.services['redis-cluster-init']?.command)).to.include(
      '--cluster-replicas 1',
    );
    for (const name of ['api-1', 'api-2', 'worker-1', 'worker-2']) {
      const env = containerEnv(compose.services[name]?.environment ?? {}, {
        PUBLIC_URL: 'https://go.example.com',
      });
      const config = loadConfig(env);
      expect(config.redis.mode, name).to.equal('cluster');
      expect(config.redis.nodes.map((n) => n.host)).to.include('redis-node-1');
      expect(config.mongodbUri).to.include('replicaSet=rs0');
      expect(compose.services[name]?.depends_on?.['redis-cluster-init']?.condition).to.equal(
        'service_completed_successfully',
      );
    }
    expect(JSON.stringify(compose.services.proxy?.command)).to.include('api-2:3000');
  });

  for (const name of ['api', 'worker']) {
    it(`gives the ${name} a valid config that points at the compose MongoDB and Redis`, () => {
      const raw = compose.services[name]?.environment ?? {};
      const env = containerEnv(raw, { PUBLIC_URL: 'https://go.example.test' });
      // Without these the container would fall back to the in-memory engine, a Redis on its own
      // loopback, or URLs pointing at localhost.
      for (const required of ['MONGODB_URI', 'REDIS_URL', 'PUBLIC_URL']) {
        expect(env[required], required).to.be.a('string').with.length.above(0);
      }
      for (const key of Object.keys(env))
        expect(configVariables, `unknown variable ${key}`).to.include(key);
      const config = loadConfig(env);
      expect(new URL(config.mongodbUri as string).hostname).to.equal('mongo');
      expect(new URL(config.redisUrl).hostname).to.equal('redis');
      expect(compose.services[name]?.depends_on?.mongo?.condition).to.equal('service_healthy');
      expect(compose.services[name]?.depends_on?.redis?.condition).to.equal('service_healthy');
    });
  }

  it('runs MongoDB as a replica set from the first start, three members in the cluster profile (issue 22)', () => {
    for (const name of ['mongo', 'mongo2', 'mongo3']) {
      expect(compose.services[name]?.command, name).to.deep.equal([
        'mongod',
        '--replSet',
        'rs0',
        '--bind_ip_all',
      ]);
    }
    expect(compose.services.mongo?.profiles).to.equal(undefined);
    expect(compose.services.mongo2?.profiles).to.deep.equal(['cluster']);
    expect(compose.services.mongo3?.profiles).to.deep.equal(['cluster']);
    const init = compose.services['mongo-init'];
    expect(init?.command).to.include('/scripts/mongo-replica-init.js');
    expect(init?.volumes).to.deep.equal([
      './scripts/mongo-replica-init.js:/scripts/mongo-replica-init.js:ro',
    ]);
    expect(fs.existsSync(path.join(root, 'scripts/mongo-replica-init.js'))).to.equal(true);
    const env = containerEnv(compose.services.api?.environment ?? {}, {
      PUBLIC_URL: 'https://go.example.test',
    });
    expect(new URL(env.MONGODB_URI as string).searchParams.get('replicaSet')).to.equal('rs0');
    // Indexes are built by the migration step once the set has a primary, before the API starts.
    expect(compose.services.migrate?.command).to.deep.equal([
      'node',
      'dist/src/cli/main.js',
      'db:migrate',
    ]);
    expect(compose.services.migrate?.depends_on?.['mongo-init']?.condition).to.equal(
      'service_completed_successfully',
    );
    expect(compose.services.api?.depends_on?.migrate?.condition).to.equal(
      'service_completed_successfully',
    );
  });

  it('keeps MongoDB and Redis data in named volumes, with health checks', () => {
    expect(compose.services.mongo?.volumes).to.deep.equal(['mongo-data:/data/db']);
    expect(compose.services.redis?.volumes).to.deep.equal(['redis-data:/data']);
    expect(compose.volumes).to.include.keys([
      'mongo-data',
      'mongo2-data',
      'mongo3-data',
      'redis-data',
      'logos',
      'secrets',
    ]);
    expect(compose.services.mongo?.healthcheck).to.be.an('object');
    expect(compose.services.redis?.healthcheck).to.be.an('object');
  });

  it('generates the missing secrets once on a volume the api and the worker share (issue 27)', () => {
    for (const name of ['api', 'worker']) {
      expect(compose.services[name]?.volumes, name).to.include('secrets:/app/data/secrets');
    }
    const shell = { PUBLIC_URL: 'https://go.example.test' };
    const runtimeDir = fs.mkdtempSync(path.join(os.tmpdir(), 'linkqr-compose-'));
    try {
      // The container's RUNTIME_DIR is /app/data (the image's WORKDIR and the default ./data).
      const [api, worker] = ['api', 'worker'].map((name) => {
        const env = containerEnv(compose.services[name]?.environment ?? {}, shell);
        expect(env.RUNTIME_DIR).to.equal(undefined);
        return loadProcessConfig({ ...env, RUNTIME_DIR: runtimeDir });
      });
      expect(api?.secrets?.generated).to.deep.equal(['WEBHOOK_SECRET_KEY', 'SESSION_SECRET']);
      expect(worker?.secrets?.reused).to.deep.equal(['WEBHOOK_SECRET_KEY', 'SESSION_SECRET']);
      expect(api?.config.webhookSecretKey).to.be.instanceOf(Buffer);
      expect(
        worker?.config.webhookSecretKey?.equals(api?.config.webhookSecretKey as Buffer),
      ).to.equal(true);
      // Given in the shell, the value wins and nothing is generated for it.
      const given = containerEnv(compose.services.api?.environment ?? {}, {
        ...shell,
        WEBHOOK_SECRET_KEY: 'ab'.repeat(32),
      });
      const withKey = loadProcessConfig({ ...given, RUNTIME_DIR: runtimeDir });
      expect(withKey.config.webhookSecretKey?.toString('hex')).to.equal('ab'.repeat(32));
    } finally {
      fs.rmSync(runtimeDir, { recursive: true, force: true });
    }
    expect(read('Dockerfile')).to.match(/mkdir -p \/app\/data\/logos \/app\/data\/secrets/);
  });

  it('checks the worker health through its own /healthz on WORKER_PORT', () => {
    const worker = compose.services.worker;
    const test = (worker?.healthcheck as { test?: string[] } | undefined)?.test ?? [];
    expect(test.slice(0, 3)).to.deep.equal(['CMD', 'node', '-e']);
    expect(test[3]).to.include('process.env.WORKER_PORT').and.include('/healthz');
    expect(worker?.environment?.WORKER_PORT).to.equal('3001');
  });

  it('builds an image that contains what the compose commands run', () => {
    const dockerfile = read('Dockerfile');
    expect(dockerfile).to.match(/COPY src \.\/src/);
    expect(dockerfile).to.match(/COPY workers \.\/workers/);
    expect(dockerfile).to.match(/RUN npm run build/);
    // package.json overrides point into vendor/, so npm ci needs it in both stages
    expect(dockerfile.match(/COPY vendor \.\/vendor/g)).to.have.length(2);
    expect(dockerfile).to.match(/npm ci --omit=dev/);
    expect(dockerfile).to.match(
      /CMD \["node", "--heap-growing-percent=50", "dist\/src\/main\.js"\]/,
    );
    // The dashboard's assets are found beside package.json at run time.
    expect(dockerfile).to.match(/^COPY web \.\/web$/m);
    const build = JSON.parse(read('tsconfig.build.json')) as { include: string[] };
    expect(build.include).to.include.members(['src', 'workers']);
  });

  it('keeps the in-memory engine out of the production install and the image', () => {
    const pkg = JSON.parse(read('package.json')) as Record<string, Record<string, string>>;
    const engine = '@jongodb/memory-server-bin-linux-x64-gnu';
    // Optional, not dev: a dev dependency limited to linux-x64 would fail `npm ci` elsewhere.
    expect(pkg.optionalDependencies).to.have.property(engine);
    expect(pkg.dependencies).not.to.have.property(engine);
    expect(pkg.devDependencies).not.to.have.property(engine);
    const runtime = read('Dockerfile').split(/^FROM /m)[2] ?? '';
    expect(runtime).to.match(/npm ci --omit=dev [^\n]*&& rm -rf node_modules\/@jongodb /);
  });

  it('installs mongodb-memory-server-core without any install-time download', () => {
    const pkg = JSON.parse(read('package.json')) as Record<string, Record<string, unknown>>;
    const lock = JSON.parse(read('package-lock.json')) as {
      packages: Record<string, { hasInstallScript?: boolean }>;
    };
    expect(pkg.dependencies).to.have.property('mongodb-memory-server-core');
    // The wrapper package downloads mongod in a postinstall script; the core has no script at all.
    expect(lock.packages).not.to.have.property('node_modules/mongodb-memory-server');
    expect(lock.packages['node_modules/mongodb-memory-server-core']).to.be.an('object');
    expect(lock.packages['node_modules/mongodb-memory-server-core']?.hasInstallScript).to.equal(
      undefined,
    );
    expect(
      Object.keys(pkg.allowScripts ?? {}).filter((name) => name.startsWith('mongodb')),
    ).to.deep.equal([]);
  });

  it('documents every configuration variable in the README', () => {
    const readme = read('README.md');
    for (const name of configVariables.filter((v) => v !== 'NODE_ENV')) {
      expect(readme, name).to.include(`\`${name}\``);
    }
  });

  it('refuses to start without PUBLIC_URL, and passes the deployment variables through', () => {
    const raw = compose.services.api?.environment ?? {};
    expect(() => containerEnv(raw, {})).to.throw(/PUBLIC_URL/);
    const shell = {
      PUBLIC_URL: 'https://go.example.test',
      PLAN_RATE_LIMITS: '{"pro":120}',
      PLANS: '[{"id":2,"name":"pro","maxLinks":100}]',
      COUNTRY_HEADER: 'cf-ipcountry',
      VISITOR_SALT: 'a-long-salt-value',
      TRUST_PROXY: '1',
    };
    for (const name of ['api', 'worker']) {
      const env = containerEnv(compose.services[name]?.environment ?? {}, shell);
      for (const [variable, value] of Object.entries(shell))
        expect(env[variable], `${name} ${variable}`).to.equal(value);
      expect(loadConfig(env).countryHeader).to.equal('cf-ipcountry');
    }
  });

  it('refuses a production start without an explicit PUBLIC_URL, naming it', () => {
    expect(() => loadConfig({ NODE_ENV: 'production' })).to.throw(
      'Invalid configuration: PUBLIC_URL: PUBLIC_URL is required in production (the origin visitors use)',
    );
    expect(
      loadConfig({ NODE_ENV: 'production', PUBLIC_URL: 'https://go.example.test/' }).publicUrl,
    ).to.equal('https://go.example.test');
    expect(loadConfig({ NODE_ENV: 'development' }).publicUrl).to.equal('http://localhost:3000');
  });

  it('builds on a supported Node LTS line', () => {
    const bases = [...read('Dockerfile').matchAll(/^FROM node:(\d+)/gm)].map((m) => Number(m[1]));
    expect(bases).to.have.length(2);
    // Node 20 reached end of life in April 2026; 22 and 24 are the LTS lines supported after it.
    for (const major of bases) expect([22, 24]).to.include(major);
  });

  it('states the GeoIP data licence and its attribution in the README', () => {
    const readme = read('README.md');
    expect(readme).to.include('This product includes GeoLite2 Data created by MaxMind');
    expect(readme).to.include('CC BY-SA 4.0');
  });

  it('runs the licence check in CI', () => {
    expect(read('.ci/run')).to.match(/^npm run licenses$/m);
  });
});

/** The Compose binaries on this machine: v2's `docker compose` plugin and the 1.x `docker-compose`. */
function composeBinaries(): Array<{ name: string; argv: string[] }> {
  const found: Array<{ name: string; argv: string[] }> = [];
  for (const argv of [['docker-compose'], ['docker', 'compose']]) {
    const [file, ...rest] = argv as [string, ...string[]];
    const probe = spawnSync(file, [...rest, 'version'], { encoding: 'utf8' });
    if (probe.status === 0) found.push({ name: argv.join(' '), argv });
  }
  return found;
}

interface ResolvedCompose {
  services: Record<
    string,
    {
      profiles?: string[];
      command?: string[];
      environment?: Record<string, string>;
      depends_on?: Record<string, { condition: string }>;
    }
  >;
}

describe('docker compose config: what Compose itself resolves (issue 22)', function () {
  // Compose starts quickly, but a busy CI machine shares its cores.
  this.timeout(60_000);
  const binaries = composeBinaries();

  function resolved(argv: string[], profiles: string[]): ResolvedCompose {
    const [file, ...rest] = argv as [string, ...string[]];
    const args = [...rest, ...profiles.flatMap((p) => ['--profile', p]), 'config'];
    const run = spawnSync(file, args, {
      cwd: root,
      encoding: 'utf8',
      env: { ...process.env, PUBLIC_URL: 'https://go.example.com' },
    });
    // An invalid file (an option this Compose does not know) fails here with Compose's reason.
    expect(
      run.status,
      `${argv.join(' ')} ${args.slice(rest.length).join(' ')}: ${run.stderr}`,
    ).to.equal(0);
    return parse(run.stdout) as ResolvedCompose;
  }

  /** Compose 1.x prints every service; v2 only those of the active profiles. */
  function active(config: ResolvedCompose, profiles: string[]): string[] {
    return Object.entries(config.services)
      .filter(([, s]) => !s.profiles || s.profiles.some((p) => profiles.includes(p)))
      .map(([name]) => name);
  }

  for (const profiles of [[], ['cluster']]) {
    const label = profiles.length ? `--profile ${profiles.join(',')}` : 'the default profile';
    it(`${label}: the file is valid, MongoDB runs with --replSet rs0 behind an init step, and every dependency is started by that profile`, function () {
      if (!binaries.length) {
        this.skip(); // neither `docker-compose` nor `docker compose` is installed (.ci/run installs docker-compose)
      }
      for (const { name, argv } of binaries) {
        const config = resolved(argv, profiles);
        const running = active(config, profiles);
        const mongods = running.filter((s) => config.services[s]?.command?.[0] === 'mongod');
        expect(mongods, name).to.deep.equal(
          profiles.length ? ['mongo', 'mongo2', 'mongo3'] : ['mongo'],
        );
        for (const s of mongods) {
          const command = config.services[s]?.command ?? [];
          expect(command[command.indexOf('--replSet') + 1], `${name}: ${s}`).to.equal('rs0');
        }
        // The init step(s): the set is initiated from mongo, and (cluster) the two others added.
        const inits = running.filter((s) =>
          config.services[s]?.command?.includes('/scripts/mongo-replica-init.js'),
        );
        const members = inits.map((s) => config.services[s]?.environment?.MONGO_MEMBERS);
        expect(members, name).to.deep.equal(
          profiles.length
            ? ['mongo:27017', 'mongo:27017,mongo2:27017,mongo3:27017']
            : ['mongo:27017'],
        );
        for (const s of inits)
          expect(config.services[s]?.environment?.MONGO_REPLSET).to.equal('rs0');
        // A profile that starts a service must start what it waits for (no optional dependencies).
        for (const s of running) {
          for (const dep of Object.keys(config.services[s]?.depends_on ?? {}))
            expect(running, `${name}: ${s} waits for ${dep}`).to.include(dep);
        }
        // The processes on the set wait for its last init step and name it in their URI.
        const lastInit = inits.at(-1) as string;
        const apps = profiles.length ? ['api-1', 'api-2', 'worker-1', 'worker-2'] : ['migrate'];
        for (const app of apps) {
          expect(
            config.services[app]?.depends_on?.[lastInit]?.condition,
            `${name}: ${app}`,
          ).to.equal('service_completed_successfully');
          // A seed list (several hosts) is not a WHATWG URL: split it by hand.
          const uri = /^mongodb:\/\/([^/]+)\/[^?]*\?(.*)$/.exec(
            config.services[app]?.environment?.MONGODB_URI ?? '',
          );
          expect(uri, `${name}: ${app}`).to.not.equal(null);
          const [, hosts = '', query = ''] = uri ?? [];
          expect(new URLSearchParams(query).get('replicaSet'), `${name}: ${app}`).to.equal('rs0');
          expect(hosts.split(','), `${name}: ${app}`).to.have.length(profiles.length ? 3 : 1);
        }
      }
    });
  }
});
