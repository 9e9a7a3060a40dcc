import { expect } from 'chai';
import { UsageError } from '../src/cli/args';
import { AppError } from '../src/shared/errors/app-error';
import { hashApiKey } from '../src/shared/secrets';
import { User } from '../src/users/user.model';
import { keyRotate, userCreate } from '../src/users/users.cli';
import { uniqueName } from './support/users';
import { rejection } from './support/rejection';

describe('CLI user commands', () => {
  it('user:create prints id, username and a key that is stored only as a hash', async () => {
    const username = uniqueName('cli');
    const out = await userCreate.run([
      '--email',
      `${username}@example.test`,
      '--username',
      username,
      '--plan',
      'pro',
      '--password',
      'long enough password',
      '--expires',
      '2030-01-01T00:00:00Z',
    ]);
    expect(Object.keys(out)).to.deep.equal(['id', 'username', 'admin', 'apiKey']);
    expect(out.admin).to.equal(false);
    expect(out.username).to.equal(username);
    expect(out.apiKey).to.match(/^lqr_[A-Za-z0-9_-]{43}$/);
    const stored = await User.findOne({ id: out.id as number }).lean();
    expect(stored?.status).to.equal('pro');
    expect(stored?.expires?.toISOString()).to.equal('2030-01-01T00:00:00.000Z');
    expect(stored?.apiKeyHash).to.equal(hashApiKey(out.apiKey as string));
    expect(JSON.stringify(stored)).not.to.include(out.apiKey as string);
    expect(JSON.stringify(stored)).not.to.include('long enough password');
  });

  it('user:create refuses missing or malformed flags with a usage error', async () => {
    expect((await rejection(userCreate.run(['--username', 'x1']))).message).to.equal(
      '--email is required',
    );
    const bad = await rejection(userCreate.run(['--email', 'nope', '--username', uniqueName()]));
    expect(bad).to.be.instanceOf(UsageError);
    expect(bad.message).to.equal('email must be a valid email');
    const unknown = await rejection(
      userCreate.run(['--email', 'a@b.test', '--username', 'abc', '--admin', 'yes']),
    );
    expect(unknown).to.be.instanceOf(UsageError);
    const short = await rejection(
      userCreate.run(['--email', 'a@b.test', '--username', uniqueName(), '--password', 'short']),
    );
    expect(short.message).to.equal('password length must be at least 8 characters long');
  });

  it('user:create refuses a taken email or username', async () => {
    const username = uniqueName('cli');
    await userCreate.run(['--email', `${username}@example.test`, '--username', username]);
    const sameEmail = await rejection(
      userCreate.run(['--email', `${username}@example.test`, '--username', uniqueName()]),
    );
    expect(sameEmail).to.be.instanceOf(AppError);
    expect(sameEmail.message).to.equal('email is already registered');
    const sameName = await rejection(
      userCreate.run(['--email', `${uniqueName()}@example.test`, '--username', username]),
    );
    expect(sameName.message).to.equal('username is already taken');
  });

  it('key:rotate prints a new key and the old one no longer matches', async () => {
    const username = uniqueName('cli');
    const created = await userCreate.run([
      '--email',
      `${username}@example.test`,
      '--username',
      username,
    ]);
    const rotated = await keyRotate.run(['--user', String(created.id)]);
    expect(rotated.apiKey).to.match(/^lqr_/).and.not.equal(created.apiKey);
    const stored = await User.findOne({ id: created.id as number }).lean();
    expect(stored?.apiKeyHash).to.equal(hashApiKey(rotated.apiKey as string));
  });

  it('key:rotate refuses an unknown user and a bad id', async () => {
    expect((await rejection(keyRotate.run(['--user', '99999999']))).message).to.equal(
      'No user with id 99999999',
    );
    expect((await rejection(keyRotate.run(['--user', 'abc']))).message).to.equal(
      '--user must be a positive integer',
    );
  });
});
