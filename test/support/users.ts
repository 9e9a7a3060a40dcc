import { randomBytes } from 'node:crypto';
import type { UserRecord } from '../../src/users/user.model';
import { createUser, type NewUser } from '../../src/users/users.service';

let sequence = 0;

export function uniqueName(stem = 'user'): string {
  sequence += 1;
  return `${stem}${sequence}${randomBytes(4).toString('hex')}`;
}

export interface TestUser {
  user: UserRecord;
  apiKey: string;
}

/** A fresh user of its own (plan `test`, effectively unlimited) for one test's data. */
export async function createTestUser(overrides: Partial<NewUser> = {}): Promise<TestUser> {
  const username = overrides.username ?? uniqueName();
  return createUser({ email: `${username}@example.test`, username, plan: 'test', ...overrides });
}
