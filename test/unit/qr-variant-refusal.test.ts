import { expect } from 'chai';
import { refusalOf, VARIANT_REFUSED } from '../../src/qr-codes/qr-codes.jobs';

describe('QR variant refusals (pure)', () => {
  it("reads back the worker's refusal, and nothing else, as a refusal", () => {
    expect(refusalOf(`${VARIANT_REFUSED}size 128 px is too small for this code`)).to.equal(
      'size 128 px is too small for this code',
    );
    // A job that failed otherwise is drawn again, never answered as a 422.
    expect(refusalOf('job stalled more than allowable limit')).to.equal(undefined);
    expect(refusalOf(undefined)).to.equal(undefined);
  });
});
