import type { Readable } from 'node:stream';
import type { SourceHttpOptions } from '../source-http';

/** A short link as a source describes it, in linkqr's terms. */
export interface LinkItem {
  kind: 'link';
  /** The source's own id: a re-run skips what an earlier run brought in by it. */
  sourceId: string;
  url: string;
  alias?: string;
  /** The host the source served it on; kept when the user has that branded domain here. */
  domain?: string;
  /** The branded domain it goes on, when the source named one already imported. */
  domainId?: number;
  title?: string;
  description?: string;
  expiry?: Date | null;
  createdAt?: Date;
  /** Further fields of the link document (behaviour of a GemPixel or linkqr link), as stored. */
  fields?: Record<string, unknown>;
  /** Fields holding ids of the same source's other records, resolved to what they became here. */
  refs?: Partial<Record<LinkRef, string | string[]>>;
  /** What could not be carried over (a password that cannot be read back), for the report. */
  notes?: string[];
}

/** The references a link may hold, by field, and the kind of record each names. */
export const LINK_REFS = {
  domainId: 'domain',
  campaignId: 'campaign',
  splashId: 'splash',
  overlayId: 'overlay',
  pixelIds: 'pixel',
} as const;
export type LinkRef = keyof typeof LINK_REFS;

/** Another kind of record of a linkqr export (pixels, campaigns...), stored much as it came. */
export interface RecordItem {
  kind: 'record';
  type: string;
  sourceId: string;
  data: Record<string, unknown>;
  /** The source id of the link whose short URL a `link` QR code's `data` is, to point it here. */
  linkRef?: string;
}

/** A record the source holds but that cannot become a link (reported as failed). */
export interface BadItem {
  kind: 'bad';
  item: string;
  message: string;
}

export type SourceItem = LinkItem | BadItem | RecordItem;

export interface SourceContext {
  /** The instance's base URL, without a trailing slash; null for an upload. */
  baseUrl: string | null;
  key: string | undefined;
  http: SourceHttpOptions;
  /** The uploaded file, streamed. */
  openFile(): Readable;
  /** The number of records, once the source tells it. */
  reportTotal(total: number): void;
}

/** One adapter per source (one file each): where the records are and how to page through them. */
export interface SourceAdapter {
  /** Names the instance in the re-run bookkeeping: ids are unique only within it. */
  origin: string;
  items(): AsyncIterable<SourceItem>;
}

export function requireKey(ctx: SourceContext, source: string): string {
  if (!ctx.key) throw new Error(`source ${source} needs its API key (key)`);
  return ctx.key;
}

export function requireUrl(ctx: SourceContext, source: string): string {
  if (!ctx.baseUrl) throw new Error(`source ${source} needs the instance's url`);
  return ctx.baseUrl;
}

/** A date from a source, or undefined when it names none. */
export function sourceDate(value: unknown): Date | undefined {
  if (typeof value !== 'string' && typeof value !== 'number') return undefined;
  if (value === '' || value === 0) return undefined;
  const date = typeof value === 'number' ? new Date(value * 1000) : new Date(value);
  return Number.isNaN(date.getTime()) ? undefined : date;
}

export const asString = (value: unknown): string | undefined =>
  typeof value === 'string' ? value : typeof value === 'number' ? String(value) : undefined;
