import { expect } from 'chai';
import mongoose from 'mongoose';
import { AppError } from '../../src/shared/errors/app-error';
import { rehearseCreateQr } from '../../src/qr-codes/qr-codes.service';
import { warmUpQrCreate } from '../../src/qr-codes/qr-warm-up';

const PUBLIC_URL = 'https://go.example.test';

describe('QR create warm-up', () => {
  it('runs its made-up creates without a single database command', () => {
    const commands: string[] = [];
    mongoose.set('debug', (collection: string, method: string) => {
      commands.push(`${collection}.${method}`);
    });
    try {
      warmUpQrCreate(PUBLIC_URL, 9);
    } finally {
      mongoose.set('debug', false);
    }
    expect(commands).to.deep.equal([]);
  });

  it('rehearses the record and render job a create would store', () => {
    const { record, job } = rehearseCreateQr(
      { type: 'link', data: 'https://example.com/a', size: 640 },
      PUBLIC_URL,
    );
    expect(record.payload).to.equal(`${PUBLIC_URL}/s/${record.alias}`);
    expect(record).to.include({ status: 'pending', renderVersion: 1, size: 640, format: 'png' });
    expect(job.content).to.include({ payload: record.payload, size: 640, alias: record.alias });
  });

  it('refuses what a create refuses', () => {
    const long = { type: 'text' as const, data: 'x'.repeat(1500), size: 128 };
    expect(() => rehearseCreateQr(long, PUBLIC_URL))
      .to.throw(AppError)
      .with.property('message')
      .that.matches(/^size 128 px is too small for this much data/);
  });
});
