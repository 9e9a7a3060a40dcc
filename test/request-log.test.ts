import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { expect } from 'chai';
import express from 'express';
import { errorHandler } from '../src/shared/errors/error-handler';
import { requestLog } from '../src/shared/http/request-log';
import { createLogger } from '../src/shared/infra/logger';
import { listen } from '../src/server';
import { startTestApp, type TestApp } from './support/app-harness';
import { client, request } from './support/http';
import { createTestUser } from './support/users';

describe('request logging', () => {
  const lines: Array<Record<string, unknown>> = [];
  let app: TestApp;
  before(async () => {
    const logger = createLogger('info', 'linkqr-test', {
      write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>),
    });
    app = await startTestApp({}, { logger });
  });
  after(() => app.close());
  beforeEach(() => {
    lines.length = 0;
  });

  it('writes one line per request with id, method, path and status, and echoes the id', async () => {
    const { apiKey } = await createTestUser();
    const res = await request(app.url, '/api/account?x=1', {
      key: apiKey,
      headers: { 'x-request-id': 'trace-123' },
    });
    expect(res.headers.get('x-request-id')).to.equal('trace-123');
    const line = lines.find((l) => l.msg === 'request completed');
    expect(line).to.include({
      reqId: 'trace-123',
      method: 'GET',
      path: '/api/account',
      status: 200,
    });
    expect(line?.ms).to.be.a('number');
  });

  it('replaces a request id that is not sane', async () => {
    const res = await request(app.url, '/healthz', {
      headers: { 'x-request-id': 'bad id with spaces and {braces}' },
    });
    expect(res.headers.get('x-request-id')).to.match(/^[0-9a-f-]{36}$/);
  });

  it('never logs the API key, a password or a query string', async () => {
    const { apiKey } = await createTestUser();
    const password = 'a very secret password';
    await client(app.url, apiKey).put('/api/account/update?token=abc', { password });
    await request(app.url, '/api/account', { key: `lqr_${'Z'.repeat(43)}` });
    const text = JSON.stringify(lines);
    expect(lines.length).to.be.greaterThan(1);
    expect(text).not.to.include(apiKey);
    expect(text).not.to.include(password);
    expect(text).not.to.include('ZZZZ');
    expect(text).not.to.include('token=abc');
  });

  it("logs a request's failure with that request's id, and one without requestLog with none", async () => {
    const failures: Array<Record<string, unknown>> = [];
    const logger = createLogger('info', 'linkqr-test', {
      write: (line: string) => {
        const entry = JSON.parse(line) as Record<string, unknown>;
        // The error handler's line (the access log's own 500 line carries no `err`).
        if (entry.msg === 'request failed' && entry.err) failures.push(entry);
      },
    });
    const boom = () => {
      throw new Error('boom');
    };
    const bare = express();
    bare.get('/api/unlogged', boom);
    bare.use(requestLog(logger));
    bare.get('/api/boom', boom);
    bare.use(errorHandler(logger));
    const server = await listen(bare, 0, '127.0.0.1');
    try {
      const base = `http://127.0.0.1:${server.port}`;
      for (const id of ['boom-1', 'boom-2']) {
        const res = await request(base, '/api/boom', { headers: { 'x-request-id': id } });
        expect(res.status).to.equal(500);
        expect(res.body).to.deep.equal({
          error: 1,
          message: 'Internal server error',
          code: 'internal',
        });
      }
      const unlogged = await request(base, '/api/unlogged', {
        headers: { 'x-request-id': 'none' },
      });
      expect(unlogged.status).to.equal(500);
      expect(unlogged.body).to.deep.equal({
        error: 1,
        message: 'Internal server error',
        code: 'internal',
      });
    } finally {
      await server.close();
    }
    expect(failures.map((f) => f.reqId)).to.deep.equal(['boom-1', 'boom-2', undefined]);
  });

  it('writes a batch of fast-path requests still waiting when the process exits', () => {
    const script = [
      `const { createLogger } = require(${JSON.stringify(path.resolve(__dirname, '../src/shared/infra/logger'))});`,
      `const { batchedAccessLog } = require(${JSON.stringify(path.resolve(__dirname, '../src/shared/http/request-log'))});`,
      "const log = batchedAccessLog(createLogger('info', 'linkqr-test'));",
      "log({ reqId: 'at-exit-1', method: 'GET', path: '/abc', status: 302, ms: 0.5 });",
      'process.exit(0);',
    ].join('\n');
    const child = spawnSync(process.execPath, ['--import', 'tsx', '-e', script], {
      encoding: 'utf8',
    });
    expect(child.status, child.stderr).to.equal(0);
    const line = child.stdout
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { msg?: string; requests?: unknown[] })
      .find((l) => l.msg === 'requests completed');
    expect(line?.requests).to.deep.equal([
      { reqId: 'at-exit-1', method: 'GET', path: '/abc', status: 302, ms: 0.5 },
    ]);
  });
});
