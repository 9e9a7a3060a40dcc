import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { configVariables, loadConfig } from '../src/config';

const root = path.resolve(__dirname, '..');
const read = (file: string) => fs.readFileSync(path.join(root, file), 'utf8');

interface ComposeService {
  image?: string;
  build?: unknown;
  command?: string[];
  environment?: Record<string, string>;
  volumes?: string[];
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: unknown;
}

/** `${NAME:-default}` as docker compose interpolates it when NAME is unset. */
function interpolate(value: string): string {
  return String(value).replace(/\$\{[A-Z_]+:-([^}]*)\}/g, '$1');
}

describe('deployment files', () => {
  const compose = parse(read('docker-compose.yml'), { merge: true }) as {
    services: Record<string, ComposeService>;
    volumes: Record<string, unknown>;
  };

  it('runs api, worker, MongoDB and Redis', () => {
    expect(Object.keys(compose.services).sort()).to.deep.equal(['api', 'mongo', 'redis', 'worker']);
    expect(compose.services.api?.command).to.deep.equal(['node', 'dist/src/main.js']);
    expect(compose.services.worker?.command).to.deep.equal(['node', 'dist/workers/main.js']);
    expect(fs.existsSync(path.join(root, 'src/main.ts'))).to.equal(true);
    expect(fs.existsSync(path.join(root, 'workers/main.ts'))).to.equal(true);
  });

  for (const name of ['api', 'worker']) {
    it(`gives the ${name} a valid config that points at the compose MongoDB and Redis`, () => {
      const raw = compose.services[name]?.environment ?? {};
      const env = Object.fromEntries(Object.entries(raw).map(([k, v]) => [k, interpolate(v)]));
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

  it('keeps MongoDB and Redis data in named volumes, with health checks', () => {
    expect(compose.services.mongo?.volumes).to.deep.equal(['mongo-data:/data/db']);
    expect(compose.services.redis?.volumes).to.deep.equal(['redis-data:/data']);
    expect(compose.volumes).to.have.keys(['mongo-data', 'redis-data', 'logos']);
    expect(compose.services.mongo?.healthcheck).to.be.an('object');
    expect(compose.services.redis?.healthcheck).to.be.an('object');
  });

  it('builds an image that contains what the compose commands run', () => {
    const dockerfile = read('Dockerfile');
    expect(dockerfile).to.match(/COPY src \.\/src/);
    expect(dockerfile).to.match(/COPY workers \.\/workers/);
    expect(dockerfile).to.match(/RUN npm run build/);
    // package.json overrides point into vendor/, so npm ci needs it in both stages
    expect(dockerfile.match(/COPY vendor \.\/vendor/g)).to.have.length(2);
    expect(dockerfile).to.match(/npm ci --omit=dev/);
    expect(dockerfile).to.match(/CMD \["node", "dist\/src\/main\.js"\]/);
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
});
