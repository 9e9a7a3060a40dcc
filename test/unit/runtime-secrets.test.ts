import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  describeRuntimeSecrets,
  ensureRuntimeSecrets,
  RuntimeSecretError,
  secretFile,
} from '../../src/shared/infra/runtime-secrets';

describe('unit: secrets a zero-config start makes for itself (issue 27)', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'linkqr-secrets-unit-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  const mode = (file: string) => fs.statSync(file).mode & 0o777;

  it('generates each missing secret once, 0600 in a 0700 folder, and reads it back next time', () => {
    const first = ensureRuntimeSecrets(dir, {});
    expect(first.generated).to.deep.equal(['WEBHOOK_SECRET_KEY', 'SESSION_SECRET']);
    expect(first.env.WEBHOOK_SECRET_KEY).to.match(/^[0-9a-f]{64}$/);
    expect(first.env.SESSION_SECRET).to.have.length.of.at.least(32);
    expect(mode(path.join(dir, 'secrets'))).to.equal(0o700);
    expect(mode(secretFile(dir, 'WEBHOOK_SECRET_KEY'))).to.equal(0o600);
    expect(mode(secretFile(dir, 'SESSION_SECRET'))).to.equal(0o600);

    const second = ensureRuntimeSecrets(dir, {});
    expect(second.generated).to.deep.equal([]);
    expect(second.reused).to.deep.equal(['WEBHOOK_SECRET_KEY', 'SESSION_SECRET']);
    expect(second.env).to.deep.equal(first.env);
    expect(fs.readdirSync(path.join(dir, 'secrets')).sort()).to.deep.equal([
      'session-secret',
      'webhook-secret-key',
    ]);
  });

  it('lets a value given in the environment win, writing nothing for it', () => {
    const given = 'ab'.repeat(32);
    const secrets = ensureRuntimeSecrets(dir, { WEBHOOK_SECRET_KEY: given });
    expect(secrets.env.WEBHOOK_SECRET_KEY).to.equal(undefined);
    expect(secrets.generated).to.deep.equal(['SESSION_SECRET']);
    expect(fs.existsSync(secretFile(dir, 'WEBHOOK_SECRET_KEY'))).to.equal(false);
    const none = ensureRuntimeSecrets(path.join(dir, 'other'), {
      WEBHOOK_SECRET_KEY: given,
      SESSION_SECRET: 'x'.repeat(40),
    });
    expect(none.env).to.deep.equal({});
    expect(fs.existsSync(path.join(dir, 'other'))).to.equal(false);
    expect(describeRuntimeSecrets(none)).to.equal(undefined);
  });

  it('keeps the value another process wrote first (the API and the worker of compose race)', () => {
    fs.mkdirSync(path.join(dir, 'secrets'), { mode: 0o700 });
    fs.writeFileSync(secretFile(dir, 'WEBHOOK_SECRET_KEY'), `${'cd'.repeat(32)}\n`, {
      mode: 0o644,
    });
    const secrets = ensureRuntimeSecrets(dir, {});
    expect(secrets.env.WEBHOOK_SECRET_KEY).to.equal('cd'.repeat(32));
    expect(secrets.reused).to.include('WEBHOOK_SECRET_KEY');
    // A copy restored readable by others is made private again.
    expect(mode(secretFile(dir, 'WEBHOOK_SECRET_KEY'))).to.equal(0o600);
  });

  it('stops, naming the file, rather than replace a file that holds no usable key', () => {
    fs.mkdirSync(path.join(dir, 'secrets'), { mode: 0o700 });
    fs.writeFileSync(secretFile(dir, 'WEBHOOK_SECRET_KEY'), 'not a key\n', { mode: 0o600 });
    expect(() => ensureRuntimeSecrets(dir, {})).to.throw(
      RuntimeSecretError,
      `${secretFile(dir, 'WEBHOOK_SECRET_KEY')} does not hold a usable WEBHOOK_SECRET_KEY`,
    );
    expect(fs.readFileSync(secretFile(dir, 'WEBHOOK_SECRET_KEY'), 'utf8')).to.equal('not a key\n');
  });

  it('says in one line what it generated or reused and where, never a value', () => {
    const secrets = ensureRuntimeSecrets(dir, {});
    const line = describeRuntimeSecrets(secrets) as string;
    expect(line).to.equal(
      `generated WEBHOOK_SECRET_KEY and SESSION_SECRET in ${path.join(dir, 'secrets')} (mode 0600, kept between starts; in production set them in the environment: README "Secrets")`,
    );
    for (const value of Object.values(secrets.env)) expect(line).to.not.include(value);
  });
});
