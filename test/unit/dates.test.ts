import { expect } from 'chai';
import { formatDate, formatDateTime, formatOptionalDateTime } from '../../src/shared/format/dates';

describe('date formats (pure)', () => {
  it('writes date-times as YYYY-MM-DD HH:MM:SS in UTC, zero-padded', () => {
    expect(formatDateTime(new Date('2024-03-05T07:08:09.999Z'))).to.equal('2024-03-05 07:08:09');
    expect(formatDateTime(new Date('2024-03-05T23:59:59+02:00'))).to.equal('2024-03-05 21:59:59');
  });

  it('writes dates as YYYY-MM-DD in UTC', () => {
    expect(formatDate(new Date('2024-12-31T23:30:00-01:00'))).to.equal('2025-01-01');
  });

  it('writes a missing date-time as null', () => {
    expect(formatOptionalDateTime(null)).to.equal(null);
    expect(formatOptionalDateTime(undefined)).to.equal(null);
  });
});
