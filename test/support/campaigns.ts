import { expect } from 'chai';
import type { TestApp } from './app-harness';
import { client } from './http';

export interface CreatedCampaign {
  id: number;
  domain: string;
  name: string;
  public: boolean;
  rotator: string | false;
  list: string;
}

/** Creates a campaign through the API and checks it was created. */
export async function createCampaign(
  app: TestApp,
  apiKey: string,
  body: Record<string, unknown> = {},
): Promise<CreatedCampaign> {
  const res = await client(app.url, apiKey).post<CreatedCampaign>('/api/campaign/add', body);
  expect(res.status, res.text).to.equal(200);
  return res.body;
}

export async function assignToCampaign(
  app: TestApp,
  apiKey: string,
  campaignId: number,
  linkId: number,
): Promise<void> {
  const res = await client(app.url, apiKey).post(`/api/campaign/${campaignId}/assign/${linkId}`);
  expect(res.status, res.text).to.equal(200);
}
