import { randomInt } from 'node:crypto';
import { expect } from 'chai';
import { QrCode } from '../../src/qr-codes/qr-code.model';
import type { TestApp } from './app-harness';
import { client } from './http';
import { uniqueName } from './users';

export interface CreatedChannel {
  id: number;
  name: string;
  description: string;
  color: string;
  starred: boolean;
}

export async function createChannel(
  app: TestApp,
  apiKey: string,
  body: Record<string, unknown> = { name: 'Channel' },
): Promise<CreatedChannel> {
  const res = await client(app.url, apiKey).post<CreatedChannel>('/api/channel/add', body);
  expect(res.status, res.text).to.equal(200);
  return res.body;
}

export async function assignToChannel(
  app: TestApp,
  apiKey: string,
  channelId: number,
  type: string,
  itemId: number,
): Promise<void> {
  const res = await client(app.url, apiKey).post(
    `/api/channel/${channelId}/assign/${type}/${itemId}`,
  );
  expect(res.status, res.text).to.equal(200);
}

/**
 * A QR code record written straight to the model (the QR API lives on another branch). Ids come
 * from a range far above any counter, so they never collide with QR codes the API creates.
 */
export async function insertQrCode(userId: number, name: string) {
  const doc = await QrCode.create({
    id: 1_000_000_000_000 + randomInt(1_000_000_000),
    userId,
    alias: uniqueName('qr'),
    name,
    type: 'text',
    data: 'hello',
    createdAt: new Date(),
  });
  return { id: doc.id, alias: doc.alias, createdAt: doc.createdAt };
}
