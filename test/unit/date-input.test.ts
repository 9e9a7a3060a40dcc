import { expect } from 'chai';
import { parseDateTimeInput } from '../../src/shared/http/date-input';

describe('unit: date-time input', () => {
  it('reads the spec form as UTC', () => {
    expect(parseDateTimeInput('2030-01-02 03:04:05')?.toISOString()).to.equal(
      '2030-01-02T03:04:05.000Z',
    );
  });

  it('reads ISO 8601 with an offset, with Z, and without a zone as UTC', () => {
    expect(parseDateTimeInput('2030-01-02T03:04:05+02:00')?.toISOString()).to.equal(
      '2030-01-02T01:04:05.000Z',
    );
    expect(parseDateTimeInput('2030-01-02T03:04Z')?.toISOString()).to.equal(
      '2030-01-02T03:04:00.000Z',
    );
    expect(parseDateTimeInput('2030-01-02T03:04:05.250')?.toISOString()).to.equal(
      '2030-01-02T03:04:05.250Z',
    );
  });

  it('reads a bare date as the end of that day in UTC', () => {
    expect(parseDateTimeInput('2030-01-02')?.toISOString()).to.equal('2030-01-02T23:59:59.000Z');
    expect(parseDateTimeInput('2028-02-29')?.toISOString()).to.equal('2028-02-29T23:59:59.000Z');
  });

  it('refuses days, hours and shapes that do not exist', () => {
    for (const bad of [
      '2030-02-29 00:00:00',
      '2030-04-31T00:00:00Z',
      '2030-01-01 24:00:00',
      '2030-01-01 10:60:00',
      '2030-13-01',
      '2030-02-30',
      'tomorrow',
      '',
    ])
      expect(parseDateTimeInput(bad), bad).to.equal(null);
    expect(parseDateTimeInput('2028-02-29 00:00:00')?.toISOString()).to.equal(
      '2028-02-29T00:00:00.000Z',
    );
  });
});
