import { expect } from 'chai';
import { PassThrough } from 'node:stream';
import { createLogger, resolveLogFormat } from '../../src/shared/infra/logger';
import { prettyMessage } from '../../src/shared/infra/pretty-log';
import { bannerText, describeData } from '../../src/shared/infra/start-banner';

describe('unit: a terminal a person can read (issue 27)', () => {
  it('picks readable lines on a terminal and JSON elsewhere, unless LOG_FORMAT says', () => {
    expect(resolveLogFormat('auto', { isTTY: true })).to.equal('pretty');
    expect(resolveLogFormat('auto', { isTTY: false })).to.equal('json');
    expect(resolveLogFormat('auto', {})).to.equal('json');
    expect(resolveLogFormat('json', { isTTY: true })).to.equal('json');
    expect(resolveLogFormat('pretty', { isTTY: false })).to.equal('pretty');
  });

  it('writes the process, the message and the fields that matter on one line', () => {
    expect(
      prettyMessage({
        level: 30,
        time: 1,
        pid: 7,
        hostname: 'h',
        name: 'linkqr-api',
        msg: 'linkqr API listening',
        port: 3000,
      }),
    ).to.equal('api    linkqr API listening  port=3000');
    expect(
      prettyMessage({
        level: 30,
        name: 'linkqr-api',
        msg: 'request completed',
        reqId: 'r1',
        method: 'GET',
        path: '/api/account',
        status: 200,
        ms: 1.4,
      }),
    ).to.equal('api    GET /api/account 200 1.4 ms');
    expect(
      prettyMessage({
        level: 40,
        name: 'linkqr-launcher',
        msg: 'no mongod',
        reasons: ['a', 'b'],
        title: 'two words',
      }),
    ).to.equal('start  no mongod  reasons=a, b title="two words"');
  });

  it('does not repeat a field its message already says', () => {
    expect(
      prettyMessage({
        level: 30,
        name: 'linkqr-launcher',
        msg: 'generated WEBHOOK_SECRET_KEY and SESSION_SECRET in /srv/data/secrets',
        dir: '/srv/data/secrets',
        generated: ['WEBHOOK_SECRET_KEY', 'SESSION_SECRET'],
      }),
    ).to.equal('start  generated WEBHOOK_SECRET_KEY and SESSION_SECRET in /srv/data/secrets');
  });

  it("shows an error's message inline and, on an error line, its stack below", () => {
    const err = { type: 'Error', message: 'boom', stack: 'Error: boom\n    at x (y.ts:1:1)' };
    expect(prettyMessage({ level: 50, name: 'linkqr-api', msg: 'request failed', err })).to.equal(
      'api    request failed  err=boom\n    Error: boom\n        at x (y.ts:1:1)',
    );
    expect(prettyMessage({ level: 40, name: 'linkqr-worker', msg: 'retry', err })).to.equal(
      'worker retry  err=boom',
    );
  });

  it('redacts secrets before the pretty line is written', async () => {
    const out = new PassThrough();
    let text = '';
    out.on('data', (chunk: Buffer) => (text += chunk.toString()));
    const logger = createLogger('info', 'linkqr-api', out, 'pretty');
    logger.info({ password: 'hunter2', authorization: 'Bearer lqr_x' }, 'signed in');
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(text).to.match(
      /^\[\d\d:\d\d:\d\d\] INFO: api {4}signed in {2}password=\[redacted\] authorization=\[redacted\]\n$/,
    );
  });

  it('names the data without a password, and gives the banner its lines', () => {
    expect(
      describeData({ kind: 'uri', uri: 'mongodb://admin:s3cret@db.example:27017/linkqr' }),
    ).to.equal('the MongoDB at mongodb://db.example:27017/linkqr');
    expect(describeData({ kind: 'memory' })).to.match(/^in memory only: lost when linkqr stops/);
    const text = bannerText(
      { publicUrl: 'http://localhost:3000', data: 'in memory', secrets: undefined },
      false,
    );
    expect(text).to.include('  Dashboard  http://localhost:3000/app\n');
    expect(text).to.not.include('Secrets');
    expect(text).to.not.include(String.fromCharCode(27));
  });
});
