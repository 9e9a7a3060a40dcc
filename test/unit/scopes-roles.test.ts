import { expect } from 'chai';
import { roleAllows } from '../../src/auth/roles';
import { ALL_SCOPES, allows, type Scope } from '../../src/auth/scopes';

describe('scopes and roles (unit)', () => {
  it('lets * cover everything, write imply read, and nothing else', () => {
    expect(ALL_SCOPES.every((s) => allows(['*'], s))).to.equal(true);
    expect(allows(['links:write'], 'links:read')).to.equal(true);
    expect(allows(['links:read'], 'links:write')).to.equal(false);
    expect(allows(['links:write'], 'qr:read')).to.equal(false);
    expect(allows(['links:write', 'qr:write'], '*')).to.equal(false);
  });

  it('caps members by role', () => {
    const allowed = (role: 'viewer' | 'editor' | 'admin') =>
      ALL_SCOPES.filter((s) => roleAllows(role, s));
    expect(allowed('viewer')).to.deep.equal(
      ALL_SCOPES.filter((s) => s.endsWith(':read') && !/^(keys|account):/.test(s)),
    );
    const editorWrites: Scope[] = ['campaigns:write', 'channels:write', 'links:write', 'qr:write'];
    expect(allowed('editor')).to.deep.equal(
      [...allowed('viewer'), ...editorWrites].sort(
        (x, y) => ALL_SCOPES.indexOf(x) - ALL_SCOPES.indexOf(y),
      ),
    );
    expect(allowed('admin')).to.deep.equal(
      ALL_SCOPES.filter((s) => s !== '*' && !/^keys:|^account:write/.test(s)),
    );
  });
});
