import { decodeQrImage } from '../../../src/qr-codes/design/decode';
import { getBytes, getJson, SourceError, type SourceHttpOptions } from '../source-http';
import type { LinkItem, SourceAdapter, SourceContext, SourceItem } from './source';
import { asString, requireKey, requireUrl, sourceDate } from './source';

const PAGE = 100;

interface GemPixelPage {
  data?: Record<string, unknown>;
}

function hostOf(shorturl: string | undefined): string | undefined {
  try {
    return shorturl ? new URL(shorturl).host : undefined;
  } catch {
    return undefined;
  }
}

/** GemPixel writes `YYYY-MM-DD HH:MM:SS` in UTC. */
function gemPixelDate(date: string | undefined): string | undefined {
  return date && /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/.test(date)
    ? `${date.replace(' ', 'T')}Z`
    : date;
}

type ListItem = Record<string, unknown>;

/** The ids a linkqr link names in its GemPixel-shaped item (the behaviour fields it adds). */
function refsOf(u: ListItem): LinkItem['refs'] {
  const refs: NonNullable<LinkItem['refs']> = {};
  if (Array.isArray(u.pixels)) refs.pixelIds = u.pixels.flatMap((p) => asString(p) ?? []);
  if (typeof u.splash === 'number') refs.splashId = String(u.splash);
  if (typeof u.overlay === 'number') refs.overlayId = String(u.overlay);
  return refs;
}

/** Behaviour fields a linkqr source answers in its link items, copied as they are. */
const BEHAVIOUR = [
  'type',
  'geotarget',
  'devicetarget',
  'languagetarget',
  'parameters',
  'metatitle',
  'metadescription',
  'metaimage',
];

function linkOf(u: ListItem): SourceItem {
  const id = asString(u.id);
  const longurl = asString(u.longurl);
  if (!id || !longurl)
    return { kind: 'bad', item: id ?? '?', message: 'url without id or longurl' };
  const fields: Record<string, unknown> = {};
  for (const key of BEHAVIOUR) if (u[key] !== undefined && u[key] !== null) fields[key] = u[key];
  return {
    kind: 'link',
    sourceId: id,
    url: longurl,
    alias: asString(u.alias),
    domain: hostOf(asString(u.shorturl)),
    title: asString(u.title),
    description: asString(u.description),
    createdAt: sourceDate(gemPixelDate(asString(u.date))),
    fields,
    refs: refsOf(u),
  };
}

/** A campaign's slug, read back from its rotator URL (`.../r/{slug}`); the API never shows it. */
function slugOf(rotator: unknown): string | undefined {
  if (typeof rotator !== 'string') return undefined;
  return /\/r\/([^/?#]+)\/?$/.exec(rotator)?.[1];
}

/** A short URL as links and QR contents are compared by: host and path, whatever the scheme. */
function shortUrlKey(url: string | undefined): string | undefined {
  if (!url || !URL.canParse(url)) return undefined;
  const { host, pathname } = new URL(url);
  return `${host.toLowerCase()}${pathname.replace(/\/+$/, '')}`;
}

/**
 * A QR code of the source, rebuilt from its image: GemPixel's API shows a code's id, name, date
 * and image (`link`) but neither its content nor its design, so the image is read back. A URL
 * becomes a `link` code (pointed at the imported link when it is one of the source's short URLs),
 * anything else a `text` code holding exactly what the image encodes; colours and logo are left
 * behind. The key goes only to the source's own host, never to an image elsewhere.
 */
async function qrOf(
  q: ListItem,
  ctx: { base: string; headers: Record<string, string>; http: SourceHttpOptions },
  links: ReadonlyMap<string, string>,
): Promise<SourceItem> {
  const id = asString(q.id) ?? '?';
  const item = `qr ${id}`;
  const image = asString(q.link);
  if (!image || !URL.canParse(image))
    return { kind: 'bad', item, message: 'QR code without an image link' };
  const url = new URL(image);
  const sameHost = url.origin === new URL(ctx.base).origin;
  let bytes: Buffer;
  try {
    bytes = await getBytes(url, { accept: 'image/*', ...(sameHost ? ctx.headers : {}) }, ctx.http);
  } catch (err) {
    if (!(err instanceof SourceError)) throw err;
    return { kind: 'bad', item, message: `its image could not be read: ${err.message}` };
  }
  const content = await decodeQrImage(bytes);
  if (content === null)
    return { kind: 'bad', item, message: 'its image does not read as a QR code' };
  const isUrl = /^https?:\/\//i.test(content) && URL.canParse(content);
  const createdAt = sourceDate(gemPixelDate(asString(q.date)));
  return {
    kind: 'record',
    type: 'qr',
    sourceId: id,
    data: {
      type: isUrl ? 'link' : 'text',
      data: content,
      ...(typeof q.name === 'string' && q.name ? { name: q.name } : {}),
      ...(createdAt ? { createdAt } : {}),
    },
    linkRef: isUrl ? links.get(shortUrlKey(content) ?? '') : undefined,
  };
}

/**
 * Any GemPixel-API service, linkqr included (`Authorization: Bearer`): its pixels, splash pages,
 * overlays, campaigns and channels first, then `/api/urls` page by page with the references a
 * link carries, then QR codes (read back from their images, see qrOf), then each channel's items.
 */
export function gempixelSource(ctx: SourceContext): SourceAdapter {
  const base = requireUrl(ctx, 'gempixel');
  return {
    origin: `gempixel ${base}`,
    async *items(): AsyncGenerator<SourceItem> {
      const headers = { Authorization: `Bearer ${requireKey(ctx, 'gempixel')}` };
      async function* list(path: string, key: string, optional = true): AsyncGenerator<ListItem> {
        for (let page = 1; ; page += 1) {
          const url = new URL(`${base}${path}`);
          url.searchParams.set('limit', String(PAGE));
          url.searchParams.set('page', String(page));
          let body: GemPixelPage;
          try {
            body = (await getJson(url, headers, ctx.http)) as GemPixelPage;
          } catch (err) {
            // A service without this kind of record (older GemPixel, another clone) answers 404.
            if (optional && err instanceof SourceError && / HTTP 404/.test(err.message)) return;
            throw err;
          }
          const data = (body.data ?? {}) as Record<string, unknown>;
          const items = Array.isArray(data[key]) ? (data[key] as ListItem[]) : [];
          yield* items;
          if (!items.length || page >= Number(data.maxpage ?? page)) return;
        }
      }
      const record = (type: string, item: ListItem, data: Record<string, unknown>): SourceItem => ({
        kind: 'record',
        type,
        sourceId: String(item.id),
        data,
      });
      for await (const p of list('/api/pixels', 'pixels'))
        yield record('pixel', p, { type: p.type, name: p.name, tag: p.tag });
      for await (const p of list('/api/splash', 'splash'))
        yield record('splash', p, { name: p.name });
      for await (const o of list('/api/overlay', 'cta'))
        yield record('overlay', o, { name: o.name, type: o.type });
      for await (const c of list('/api/campaigns', 'campaigns')) {
        const slug = slugOf(c.rotator);
        yield record('campaign', c, {
          name: c.name ?? c.domain ?? '',
          public: c.public === true,
          ...(slug ? { slug } : {}),
        });
      }
      const channels: string[] = [];
      for await (const c of list('/api/channels', 'channels')) {
        channels.push(String(c.id));
        yield record('channel', c, {
          name: c.name,
          description: c.description ?? '',
          color: c.color ?? '',
          starred: c.starred === true,
        });
      }
      // Each link's short URL, so a QR code that encodes one follows the link it became here.
      const links = new Map<string, string>();
      for await (const u of list('/api/urls?order=date', 'urls', false)) {
        const key = shortUrlKey(asString(u.shorturl));
        const id = asString(u.id);
        if (key && id) links.set(key, id);
        yield linkOf(u);
      }
      for await (const q of list('/api/qr', 'qrs'))
        yield await qrOf(q, { base, headers, http: ctx.http }, links);
      for (const channel of channels)
        for await (const item of list(`/api/channel/${encodeURIComponent(channel)}`, 'items')) {
          const data = { channelId: Number(channel), type: item.type, itemId: item.id };
          yield {
            kind: 'record',
            type: 'channelItem',
            sourceId: `${channel}/${String(item.type)}/${String(item.id)}`,
            data,
          };
        }
    },
  };
}
