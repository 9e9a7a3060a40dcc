import type { Request } from 'express';
import type { ResourceScope } from '../auth/scopes';
import type { AppError } from '../shared/errors/app-error';
import { scopeRefusal } from '../shared/http/endpoint';
import type { ImportSource } from './import.model';

const GEMPIXEL: readonly ResourceScope[] = [
  'links:write',
  'qr:write',
  'pixels:write',
  'splash:write',
  'overlays:write',
  'campaigns:write',
  'channels:write',
];

/**
 * What an import of each source may create, as the scopes creating it directly would need. An
 * import is a bulk write of those records: `imports:write` alone must not let a key make what it
 * could not make itself (a webhook sending visits to any address, say).
 */
export const IMPORT_WRITES: Readonly<Record<ImportSource, readonly ResourceScope[]>> = {
  csv: ['links:write'],
  shlink: ['links:write'],
  kutt: ['links:write'],
  bitly: ['links:write'],
  gempixel: GEMPIXEL,
  linkqr: [...GEMPIXEL, 'domains:write', 'webhooks:write'],
};

/** Why the request's key or role may not import from `source`, beyond the route's own scope. */
export function importRefusal(req: Request, source: ImportSource): AppError | undefined {
  for (const scope of IMPORT_WRITES[source]) {
    const refused = scopeRefusal(req, scope);
    if (refused) return refused;
  }
  return undefined;
}
