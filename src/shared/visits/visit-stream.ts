import type { RedisKeys } from '../infra/redis-keys';
import type { CapturedVisit, VisitKind } from './visits.types';

export const DRAINER_GROUP = 'visit-drainers';

export function visitStreamKey(keys: RedisKeys): string {
  return keys.key('visits', 'stream');
}

export function uniqueVisitorsKey(keys: RedisKeys, target: string): string {
  return keys.key('visits', 'hll', target);
}

/** Flat field list for XADD; short names keep the stream small under load. */
export function encodeVisit(v: CapturedVisit): string[] {
  return [
    'k',
    v.kind,
    'i',
    String(v.targetId),
    't',
    String(v.at),
    'v',
    v.visitor,
    'c',
    v.country,
    'u',
    v.userAgent,
    'r',
    v.referrer,
  ];
}

export function decodeVisit(fields: string[]): CapturedVisit | null {
  const map = new Map<string, string>();
  for (let i = 0; i + 1 < fields.length; i += 2)
    map.set(fields[i] as string, fields[i + 1] as string);
  const kind = map.get('k');
  const targetId = Number(map.get('i'));
  const at = Number(map.get('t'));
  if ((kind !== 'link' && kind !== 'qr') || !Number.isSafeInteger(targetId) || !Number.isFinite(at))
    return null;
  return {
    kind: kind as VisitKind,
    targetId,
    at,
    visitor: map.get('v') ?? '',
    country: map.get('c') ?? 'Unknown',
    userAgent: map.get('u') ?? '',
    referrer: map.get('r') ?? '',
  };
}
