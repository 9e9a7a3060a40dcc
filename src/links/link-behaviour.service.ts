import { Overlay } from '../overlays/overlay.model';
import { presentOverlay } from '../overlays/overlays.presenter';
import { Pixel } from '../pixels/pixel.model';
import type { PixelType } from '../pixels/pixel-tags';
import { validation } from '../shared/errors/app-error';
import { SplashPage } from '../splash/splash-page.model';
import { presentSplash } from '../splash/splash.presenter';
import type { LinkBehaviourInput, LinkType } from './link-behaviour.schemas';
import type { LinkRecord } from './link.model';

type Current = Pick<LinkRecord, 'type' | 'splashId' | 'overlayId'> | null;

/** The id sent, else (when nothing was sent) the one the link of that type already had. */
function kept(
  sent: number | null | undefined,
  type: LinkType,
  currentType: string | null | undefined,
  currentId: number | null | undefined,
): number | null {
  if (typeof sent === 'number') return sent;
  return sent === undefined && currentType === type ? (currentId ?? null) : null;
}

/** Which splash page or overlay a link uses, from `type`, `splash` and `overlay` together. */
function chooseType(input: LinkBehaviourInput, current: Current) {
  const named = input.type;
  const splash = named?.splash ?? input.splash;
  const overlay = named?.overlay ?? input.overlay;
  let type: LinkType | undefined = named?.type;
  if (!type && typeof splash === 'number' && typeof overlay === 'number')
    throw validation('splash and overlay cannot both be set: a link has one type', 'overlay');
  if (!type && typeof splash === 'number') type = 'splash';
  if (!type && typeof overlay === 'number') type = 'overlay';
  const effective = type ?? ((current?.type as LinkType | undefined) || 'direct');
  if (typeof splash === 'number' && effective !== 'splash')
    throw validation('splash applies only to links of type splash', 'splash');
  if (typeof overlay === 'number' && effective !== 'overlay')
    throw validation('overlay applies only to links of type overlay', 'overlay');
  const overlayId =
    effective === 'overlay' ? kept(overlay, 'overlay', current?.type, current?.overlayId) : null;
  if (effective === 'overlay' && overlayId === null)
    throw validation('overlay is required with type overlay', 'overlay');
  const splashId =
    effective === 'splash' ? kept(splash, 'splash', current?.type, current?.splashId) : null;
  const changed = type !== undefined || splash !== undefined || overlay !== undefined;
  return { changed, type: effective, splashId, overlayId };
}

async function requireOwned(
  userId: number,
  field: string,
  ids: number[],
  count: (filter: Record<string, unknown>) => Promise<number>,
  what: string,
): Promise<void> {
  if (!ids.length) return;
  if ((await count({ userId, id: { $in: ids } })) !== ids.length)
    throw validation(`${field} must name ${what} of yours`, field);
}

/**
 * The `$set` of a link's behaviour fields for a create (`current` null) or an update, after
 * checking that every pixel, splash page and overlay named belongs to the caller (422 otherwise,
 * whether the id is someone else's or nobody's).
 */
export async function behaviourChanges(
  userId: number,
  input: LinkBehaviourInput,
  current: Current,
): Promise<Record<string, unknown>> {
  const set: Record<string, unknown> = {};
  const choice = chooseType(input, current);
  if (choice.changed || !current) {
    if (choice.splashId !== null)
      await requireOwned(
        userId,
        'splash',
        [choice.splashId],
        (f) => SplashPage.countDocuments(f),
        'a splash page',
      );
    if (choice.overlayId !== null)
      await requireOwned(
        userId,
        'overlay',
        [choice.overlayId],
        (f) => Overlay.countDocuments(f),
        'a CTA overlay',
      );
    Object.assign(set, {
      type: choice.type,
      splashId: choice.splashId,
      overlayId: choice.overlayId,
    });
  }
  if (input.pixels !== undefined) {
    const pixels = input.pixels ?? [];
    await requireOwned(userId, 'pixels', pixels, (f) => Pixel.countDocuments(f), 'pixels');
    set.pixelIds = pixels;
  }
  for (const key of [
    'geotarget',
    'devicetarget',
    'languagetarget',
    'rules',
    'parameters',
  ] as const) {
    if (input[key] !== undefined) set[key] = input[key] ?? [];
  }
  if (input.variants !== undefined) set.variants = input.variants ?? [];
  if (input.maxclicks !== undefined) set.maxClicks = input.maxclicks;
  if (input.expiredurl !== undefined) set.expiredUrl = input.expiredurl || null;
  if (input.monitor !== undefined) set.monitor = input.monitor;
  if (input.fallback !== undefined) set.fallback = input.fallback || null;
  for (const key of ['metatitle', 'metadescription', 'metaimage'] as const) {
    if (input[key] !== undefined) set[key] = input[key];
  }
  return set;
}

/** A pixel as a visitor page loads it. */
export interface PagePixel {
  type: PixelType;
  tag: string;
}

export interface SplashContent {
  title: string;
  message: string;
  image: string;
  link: string;
  button: string;
  counter: number;
}

export interface OverlayContent {
  id: number;
  type: 'message' | 'contact';
  message: string;
  button: string;
  link: string;
  color: string;
  background: string;
  position: string;
}

export interface LinkMeta {
  title: string;
  description: string;
  image: string;
}

/**
 * Everything a visitor page of the link needs, cached with the link so that a visit reads no
 * database. Absent (null) for a direct link without pixels, pages or preview tags: that one
 * stays a bare 302 (to the destination its rules choose, if it has any).
 */
export interface VisitorBehaviour {
  type: LinkType;
  title: string;
  pixels: PagePixel[];
  /** For `splash`: the custom page, or null for the default one. */
  splash: SplashContent | null;
  overlay: OverlayContent | null;
  meta: LinkMeta | null;
}

export function linkParameters(link: Pick<LinkRecord, 'parameters'>) {
  return (link.parameters ?? []).map((p) => ({ name: p.name ?? '', value: p.value ?? '' }));
}

/** Whether a visitor of the link meets more than a plain 302 to its URL. */
export function hasVisitorBehaviour(link: LinkRecord): boolean {
  return (
    (link.type ?? 'direct') !== 'direct' ||
    (link.pixelIds ?? []).length > 0 ||
    !!(link.metatitle || link.metadescription || link.metaimage)
  );
}

function splashContentOf(p: ReturnType<typeof presentSplash>): SplashContent {
  const { title, message, image, link, button, counter } = p;
  return { title, message, image, link, button, counter };
}

function overlayContentOf(p: ReturnType<typeof presentOverlay>): OverlayContent {
  const { id, type, message, button, link, color, background, position } = p;
  return {
    id,
    type: type as OverlayContent['type'],
    message,
    button,
    link,
    color,
    background,
    position,
  };
}

export async function loadVisitorBehaviour(link: LinkRecord): Promise<VisitorBehaviour | null> {
  const type = (link.type as LinkType | undefined) ?? 'direct';
  if (!hasVisitorBehaviour(link)) return null;
  const meta =
    link.metatitle || link.metadescription || link.metaimage
      ? {
          title: link.metatitle ?? '',
          description: link.metadescription ?? '',
          image: link.metaimage ?? '',
        }
      : null;
  const pixelIds = link.pixelIds ?? [];

  const [pixels, splash, overlay] = await Promise.all([
    pixelIds.length
      ? Pixel.find({ userId: link.userId, id: { $in: pixelIds } })
          .sort({ id: 1 })
          .lean()
      : [],
    type === 'splash' && link.splashId
      ? SplashPage.findOne({ userId: link.userId, id: link.splashId }).lean()
      : null,
    type === 'overlay' && link.overlayId
      ? Overlay.findOne({ userId: link.userId, id: link.overlayId }).lean()
      : null,
  ]);
  return {
    // An overlay that vanished between a delete and its links' reset leaves a plain frame.
    type: type === 'overlay' && !overlay ? 'frame' : type,
    title: link.title ?? '',
    pixels: pixels.map((p) => ({ type: p.type as PixelType, tag: p.tag })),
    splash: splash ? splashContentOf(presentSplash(splash)) : null,
    overlay: overlay ? overlayContentOf(presentOverlay(overlay)) : null,
    meta,
  };
}
