import { randomBytes } from 'node:crypto';
import type { RedisKeys } from '../shared/infra/redis-keys';
import type { CapturedVisit, VisitKind } from './visits.types';

export const DRAINER_GROUP = 'visit-drainers';

/** VISIT_STREAM_PARTITIONS' default: enough for a few shards, cheap on one server. */
export const DEFAULT_VISIT_PARTITIONS = 4;

/**
 * The stream of one partition of the click queue. Each partition is hash-tagged on its own, so a
 * cluster spreads the partitions (and the clicks) over its shards rather than one taking all.
 */
export function visitStreamKey(keys: RedisKeys, partition = 0): string {
  return keys.slotted(`visits:stream:${partition}`);
}

export function visitStreamKeys(keys: RedisKeys, partitions: number): string[] {
  return Array.from({ length: partitions }, (_, p) => visitStreamKey(keys, p));
}

/** Where clicks were queued before partitions: drained on start, never written to. */
export function legacyVisitStreamKey(keys: RedisKeys): string {
  return keys.key('visits', 'stream');
}

/**
 * The partition of a target's clicks: all clicks of one link (or QR code) share one, and the
 * links (and the QR codes) spread over every partition. QR code n starts half the partitions
 * after link n, so the two kinds' low ids do not pile onto the same streams. (It was
 * `2n + kind`, which with an even count sent every link to the even partitions: half the
 * streams, and on a cluster possibly one shard, took all link clicks.)
 */
export function visitPartitionOf(kind: VisitKind, targetId: number, partitions: number): number {
  const offset = kind === 'qr' ? Math.floor(partitions / 2) : 0;
  return (targetId + offset) % partitions;
}

/**
 * Makes the ids of one process's clicks: a random origin per process and a counter, so ids are
 * unique among every API process without asking anyone (the redirect makes no round trip for it).
 */
export function clickIdSource(): () => string {
  const origin = randomBytes(6).toString('base64url');
  let sequence = 0;
  return () => {
    sequence += 1;
    return `${origin}.${sequence.toString(36)}`;
  };
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
    ...(v.variant ? ['a', v.variant] : []),
    ...(v.clickId ? ['x', v.clickId] : []),
    ...(v.resent ? ['d', '1'] : []),
  ];
}

/** The one field of an entry that carries several clicks (see `encodeVisits`). */
const PACKED = 'p';

type PackedVisit = [
  kind: string,
  targetId: number,
  at: number,
  visitor: string,
  country: string,
  userAgent: string,
  referrer: string,
  variant: string,
  clickId: string,
  resent: 0 | 1,
];

/**
 * The clicks one API process sends to one partition at once, as one stream entry: one XADD and
 * one field for all of them, rather than a command and sixteen fields each, on both the API's and
 * the drainer's side. Each click keeps its own click id, under which it is stored once.
 */
export function encodeVisits(visits: readonly CapturedVisit[]): string[] {
  const rows = visits.map((v): PackedVisit => [
    v.kind,
    v.targetId,
    v.at,
    v.visitor,
    v.country,
    v.userAgent,
    v.referrer,
    v.variant ?? '',
    v.clickId ?? '',
    v.resent ? 1 : 0,
  ]);
  return [PACKED, JSON.stringify(rows)];
}

/**
 * One packed click, checked field by field. Runs once per click drained: it reads the row's
 * elements in place rather than destructuring them into a new array and checking a second one.
 */
function unpack(row: unknown): CapturedVisit | null {
  if (!Array.isArray(row) || row.length !== 10) return null;
  const r = row as unknown[];
  const kind = r[0];
  const targetId = r[1];
  const at = r[2];
  const visitor = r[3];
  const country = r[4];
  const userAgent = r[5];
  const referrer = r[6];
  const variant = r[7];
  const clickId = r[8];
  if (kind !== 'link' && kind !== 'qr') return null;
  if (typeof targetId !== 'number' || !Number.isSafeInteger(targetId)) return null;
  if (typeof at !== 'number' || !Number.isFinite(at)) return null;
  if (
    typeof visitor !== 'string' ||
    typeof country !== 'string' ||
    typeof userAgent !== 'string' ||
    typeof referrer !== 'string' ||
    typeof variant !== 'string' ||
    typeof clickId !== 'string' ||
    !clickId
  )
    return null;
  const visit: CapturedVisit = { kind, targetId, at, visitor, country, userAgent, referrer };
  if (variant) visit.variant = variant;
  visit.clickId = clickId;
  if (r[9] === 1) visit.resent = true;
  return visit;
}

/**
 * The clicks of one stream entry: several (`encodeVisits`) or one (`encodeVisit`, as the spool and
 * earlier versions write them). Null for an entry that is not a visit at all; a packed click that
 * is malformed is left out, and counted in `malformed`.
 */
export function decodeEntry(
  fields: string[],
): { visits: CapturedVisit[]; malformed: number } | null {
  if (fields.length === 2 && fields[0] === PACKED) {
    let rows: unknown;
    try {
      rows = JSON.parse(fields[1] as string);
    } catch {
      return null;
    }
    if (!Array.isArray(rows)) return null;
    const visits: CapturedVisit[] = [];
    for (const row of rows) {
      const visit = unpack(row);
      if (visit) visits.push(visit);
    }
    return { visits, malformed: rows.length - visits.length };
  }
  const visit = decodeVisit(fields);
  return visit ? { visits: [visit], malformed: 0 } : null;
}

export function decodeVisit(fields: string[]): CapturedVisit | null {
  let kind: string | undefined;
  let targetId = NaN;
  let at = NaN;
  let visitor = '';
  let country = 'Unknown';
  let userAgent = '';
  let referrer = '';
  let variant: string | undefined;
  let clickId: string | undefined;
  let resent = false;
  // A field named twice keeps its last value.
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const value = fields[i + 1] as string;
    switch (fields[i]) {
      case 'k':
        kind = value;
        break;
      case 'i':
        targetId = Number(value);
        break;
      case 't':
        at = Number(value);
        break;
      case 'v':
        visitor = value;
        break;
      case 'c':
        country = value;
        break;
      case 'u':
        userAgent = value;
        break;
      case 'r':
        referrer = value;
        break;
      case 'a':
        variant = value;
        break;
      case 'x':
        clickId = value;
        break;
      case 'd':
        resent = value === '1';
        break;
    }
  }
  if ((kind !== 'link' && kind !== 'qr') || !Number.isSafeInteger(targetId) || !Number.isFinite(at))
    return null;
  const visit: CapturedVisit = { kind, targetId, at, visitor, country, userAgent, referrer };
  if (variant) visit.variant = variant;
  if (clickId) visit.clickId = clickId;
  if (resent) visit.resent = true;
  return visit;
}
