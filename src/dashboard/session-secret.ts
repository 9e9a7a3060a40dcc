import { randomBytes } from 'node:crypto';
import { Setting } from '../visits/visit.model';

/**
 * The secret that signs dashboard session cookies: SESSION_SECRET when configured, else a random
 * one created once per database, so sessions survive restarts and work across API processes.
 */
export async function loadSessionSecret(configured: string | undefined): Promise<string> {
  if (configured) return configured;
  const doc = await Setting.findOneAndUpdate(
    { _id: 'dashboardSessionSecret' },
    { $setOnInsert: { value: randomBytes(32).toString('base64url') } },
    { upsert: true, returnDocument: 'after', lean: true },
  );
  if (!doc) throw new Error('dashboard session secret could not be loaded');
  return doc.value;
}
