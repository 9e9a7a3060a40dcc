import readline from 'node:readline';
import type { Readable } from 'node:stream';
import { EXPORT_VERSION } from '../../../src/exports/portable-export';
import { getStream, SourceError } from '../source-http';
import type { LinkItem, LinkRef, SourceAdapter, SourceContext, SourceItem } from './source';
import { LINK_REFS, requireKey, sourceDate } from './source';

/** Fields of a link record that the import sets itself rather than copies. */
const OWN_FIELDS = new Set([
  'id',
  'alias',
  'domainId',
  'url',
  'title',
  'description',
  'expiry',
  'createdAt',
]);
const DATE_FIELDS = new Set([
  'expiry',
  'createdAt',
  'updatedAt',
  'assignedAt',
  'failingSince',
  'disabledAt',
]);

function idOf(value: unknown): string | undefined {
  return typeof value === 'number' && value > 0 ? String(value) : undefined;
}

/** A link record of an export as a link to insert, its references kept for the processor. */
function linkOf(data: Record<string, unknown>): LinkItem {
  const fields: Record<string, unknown> = {};
  const refs: LinkItem['refs'] = {};
  for (const [key, value] of Object.entries(data)) {
    if (key in LINK_REFS) {
      const ref = key as LinkRef;
      if (Array.isArray(value)) refs[ref] = value.flatMap((v) => idOf(v) ?? []);
      else if (idOf(value)) refs[ref] = idOf(value);
      else if (ref !== 'domainId') fields[key] = ref === 'pixelIds' ? [] : null;
    } else if (!OWN_FIELDS.has(key)) fields[key] = value;
  }
  return {
    kind: 'link',
    sourceId: String(data.id),
    url: String(data.url ?? ''),
    alias: typeof data.alias === 'string' ? data.alias : undefined,
    title: typeof data.title === 'string' ? data.title : undefined,
    description: typeof data.description === 'string' ? data.description : undefined,
    expiry: sourceDate(data.expiry) ?? null,
    createdAt: sourceDate(data.createdAt),
    fields,
    refs,
  };
}

/** JSON turns dates into strings: the record's date fields become dates again. */
function revived(data: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(data))
    out[key] = DATE_FIELDS.has(key) && typeof value === 'string' ? new Date(value) : value;
  return out;
}

/** A short URL as the export's links are compared by: host and path, whatever the scheme. */
function shortUrlKey(url: string): string | undefined {
  if (!URL.canParse(url)) return undefined;
  const { host, pathname } = new URL(url);
  return `${host.toLowerCase()}${pathname.replace(/\/+$/, '')}`;
}

/**
 * The source's short URLs of the export's links, by `shortUrlKey`, so a QR code encoding one can
 * be pointed at the link it became here (one small entry a link: links come before QR codes).
 */
class ShortUrls {
  publicUrl = '';
  private readonly domains = new Map<string, string>();
  private readonly links = new Map<string, string>();

  addDomain(data: Record<string, unknown>) {
    if (typeof data.domain === 'string') this.domains.set(String(data.id), data.domain);
  }

  addLink(data: Record<string, unknown>) {
    if (typeof data.alias !== 'string') return;
    const domainId = typeof data.domainId === 'number' ? data.domainId : 0;
    const origin = domainId ? this.domains.get(String(domainId)) : this.publicUrl;
    const key = origin && shortUrlKey(`${origin}/${data.alias}`);
    if (key) this.links.set(key, String(data.id));
  }

  /** The link a `link` QR code's target is, when it is one of the export's short URLs. */
  linkOf(qr: Record<string, unknown>): string | undefined {
    if (qr.type !== 'link' || typeof qr.data !== 'string') return undefined;
    const key = shortUrlKey(qr.data);
    return key === undefined ? undefined : this.links.get(key);
  }
}

/**
 * linkqr's portable export (docs/export-format.md): an uploaded file, or `url` + `key` of another
 * linkqr whose `GET /api/export` is read as it streams.
 */
export function linkqrSource(ctx: SourceContext): SourceAdapter {
  let origin = 'linkqr';
  const shortUrls = new ShortUrls();
  const adapter: SourceAdapter = {
    get origin() {
      return origin;
    },
    async *items(): AsyncGenerator<SourceItem> {
      const input: Readable = ctx.baseUrl
        ? await getStream(
            new URL(`${ctx.baseUrl}/api/export`),
            { Authorization: `Bearer ${requireKey(ctx, 'linkqr')}` },
            ctx.http,
          )
        : ctx.openFile();
      const lines = readline.createInterface({ input, crlfDelay: Infinity });
      let header = true;
      let n = 0;
      for await (const line of lines) {
        n += 1;
        if (!line.trim()) continue;
        let parsed: { type?: string; data?: Record<string, unknown> } & Record<string, unknown>;
        try {
          parsed = JSON.parse(line) as typeof parsed;
        } catch {
          if (header) throw new SourceError('not a linkqr export: the first line is not JSON');
          yield { kind: 'bad', item: `line ${n}`, message: 'line is not JSON' };
          continue;
        }
        if (header) {
          if (parsed.format !== 'linkqr-export') throw new SourceError('not a linkqr export');
          if (typeof parsed.version !== 'number' || parsed.version > EXPORT_VERSION)
            throw new SourceError(
              `export version ${String(parsed.version)} is newer than this linkqr reads`,
            );
          const user = parsed.user as { id?: number } | undefined;
          origin = `linkqr ${String(parsed.source)} user ${String(user?.id)}`;
          shortUrls.publicUrl = String(parsed.source);
          header = false;
          continue;
        }
        const { type, data } = parsed;
        if (!type || !data) {
          yield { kind: 'bad', item: `line ${n}`, message: 'record without type or data' };
          continue;
        }
        if (type === 'link') {
          shortUrls.addLink(data);
          yield linkOf(data);
        } else if (type === 'qr') {
          const linkRef = shortUrls.linkOf(data);
          yield { kind: 'record', type, sourceId: String(data.id), data: revived(data), linkRef };
        } else {
          if (type === 'domain') shortUrls.addDomain(data);
          const sourceId =
            type === 'channelItem'
              ? `${String(data.channelId)}/${String(data.type)}/${String(data.itemId)}`
              : String(data.id);
          yield { kind: 'record', type, sourceId, data: revived(data) };
        }
      }
    },
  };
  return adapter;
}
