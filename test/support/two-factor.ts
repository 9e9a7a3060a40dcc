import { generateSync } from 'otplib';
import { TwoFactor } from '../../src/two-factor/two-factor.model';
import { client } from './http';
import { TEST_PASSWORD } from './dashboard';
import type { TestUser } from './users';

/**
 * The code an authenticator app shows now. A code is accepted once per 30-second step (and one
 * step either side), so a test that needs a second code within the same step calls `allowNextCode`.
 */
export function totpNow(secret: string): string {
  return generateSync({ secret });
}

/** Forgets the last accepted step, so the current code is good once more (arranging, not waiting). */
export async function allowNextCode(userId: number): Promise<void> {
  await TwoFactor.updateOne({ userId }, { $set: { lastStep: 0 } });
}

export interface Enrolled {
  secret: string;
  recoveryCodes: string[];
}

/** Turns two-factor sign-in on for `user` through the API; answers the secret and the codes. */
export async function enrol(baseUrl: string, user: TestUser): Promise<Enrolled> {
  const api = client(baseUrl, user.apiKey);
  const setup = await api.post<{ data: { secret: string } }>('/api/account/2fa/setup', {
    current: TEST_PASSWORD,
  });
  if (setup.status !== 200) throw new Error(`setup answered ${setup.status}: ${setup.text}`);
  const { secret } = setup.body.data;
  const enable = await api.post<{ data: { recoveryCodes: string[] } }>('/api/account/2fa/enable', {
    code: totpNow(secret),
  });
  if (enable.status !== 200) throw new Error(`enable answered ${enable.status}: ${enable.text}`);
  await allowNextCode(user.user.id);
  return { secret, recoveryCodes: enable.body.data.recoveryCodes };
}
