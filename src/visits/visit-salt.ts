import { randomBytes } from 'node:crypto';
import { Setting } from './visit.model';

/**
 * The visitor-hash salt: VISITOR_SALT when configured, else a random one created once per
 * database, so hashes stay stable across restarts and replicas without being guessable.
 */
export async function loadVisitorSalt(configured: string | undefined): Promise<string> {
  if (configured) return configured;
  const doc = await Setting.findOneAndUpdate(
    { _id: 'visitorSalt' },
    { $setOnInsert: { value: randomBytes(32).toString('base64url') } },
    { upsert: true, returnDocument: 'after', lean: true },
  );
  if (!doc) throw new Error('visitor salt could not be loaded');
  return doc.value;
}
