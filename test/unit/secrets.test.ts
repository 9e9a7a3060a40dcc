import { scrypt } from 'node:crypto';
import { expect } from 'chai';
import {
  hashPassword,
  PASSWORD_SCRYPT,
  useScryptCostForTests,
  verifyPassword,
} from '../../src/shared/secrets';

/** Issue 29, I: scrypt at OWASP's cost for new hashes; older hashes still verify. */
describe('unit: password hashing', () => {
  after(() => useScryptCostForTests(2 ** 14));

  it('hashes new passwords with N=2^17, r=8, p=1 and verifies them', async function () {
    this.timeout(20_000);
    useScryptCostForTests(PASSWORD_SCRYPT.N);
    const stored = await hashPassword('correct horse battery');
    expect(stored.split('$').slice(0, 4)).to.deep.equal(['scrypt', '131072', '8', '1']);
    expect(await verifyPassword('correct horse battery', stored)).to.equal(true);
    expect(await verifyPassword('wrong horse battery', stored)).to.equal(false);
  });

  it('still verifies a hash stored at the former N=2^14', async () => {
    const salt = Buffer.from('0123456789abcdef');
    const key = await new Promise<Buffer>((resolve, reject) =>
      scrypt('old password', salt, 32, { N: 2 ** 14, r: 8, p: 1 }, (err, k) =>
        err ? reject(err) : resolve(k),
      ),
    );
    const stored = [
      'scrypt',
      16384,
      8,
      1,
      salt.toString('base64url'),
      key.toString('base64url'),
    ].join('$');
    expect(await verifyPassword('old password', stored)).to.equal(true);
  });

  it('refuses a stored hash that names a cost beyond what it may spend', async () => {
    expect(await verifyPassword('x', 'scrypt$1073741824$8$1$AAAA$AAAA')).to.equal(false);
  });
});
