import { expect } from 'chai';
import { isDuplicateKeyError } from '../../src/shared/db/duplicate-key';

function duplicate(message: string, keyValue?: Record<string, unknown>) {
  return Object.assign(new Error(message), { code: 11000 }, keyValue ? { keyValue } : {});
}

describe('isDuplicateKeyError', () => {
  it("names the field from MongoDB's keyValue", () => {
    const err = duplicate('E11000 duplicate key error', { alias: 'abc' });
    expect(isDuplicateKeyError(err, 'alias')).to.equal(true);
    expect(isDuplicateKeyError(err, 'id')).to.equal(false);
  });

  it("names the field from the embedded engine's message when keyValue is absent", () => {
    const err = duplicate('E11000 duplicate key error index: alias_1 dup key: { alias: btj0I3Up }');
    expect(isDuplicateKeyError(err, 'alias')).to.equal(true);
    expect(isDuplicateKeyError(err, 'id')).to.equal(false);
    expect(isDuplicateKeyError(err)).to.equal(true);
  });

  it('is false for any other error', () => {
    expect(isDuplicateKeyError(new Error('dup key: { alias: x }'), 'alias')).to.equal(false);
    expect(isDuplicateKeyError(null)).to.equal(false);
  });
});
