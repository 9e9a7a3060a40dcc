import { randomInt } from 'node:crypto';
import type { Model } from 'mongoose';
import { unassignEverywhere } from '../channels/channels.service';
import type { AppDeps } from '../deps';
import type { Primable } from '../shared/cache/shared-cache';
import { deleteOwned, findOwned, listOwned } from '../shared/db/owned';
import { conflict, notFound, validation } from '../shared/errors/app-error';
import { nextId } from '../shared/ids/counter.model';
import type { PageQuery } from '../shared/http/pagination';
import type { Logger } from '../shared/infra/logger';
import type { Visits } from '../visits/visit-recorder';
import { QrCode, type QrCodeRecord, type QrType } from './qr-code.model';
import { qrLookupCacheFor } from './qr-lookup-cache';
import { qrRenderJobFor, type QrRenderQueue } from './qr-codes.jobs';
import { DEFAULT_SIZE, type QrCreate, type QrUpdate } from './qr-codes.schemas';
import { DEFAULT_BACKGROUND, DEFAULT_FOREGROUND, parseRgb } from './qr-colors';
import { parseQrContent, type QrContent } from './qr-content';
import { deleteImages } from './qr-images';
import { encodeQrPayload } from './qr-payload';
import { MIN_MODULE_PIXELS, modulePixels } from './qr-symbol';
import { qrMatrix, type Matrix } from './design/matrix';
import { designProblem } from './design/readability';
import { printCheck, type PrintCheck } from './design/print-check';
import { POINTS_PER_PIXEL } from './qr-variants';
import { errorCorrectionOf, isStyled, marginOf, type QrStyle } from './design/style';
import { LogoError } from './logo/logo-errors';
import { checkLogoAtOnce, type LogoOptions } from './logo/logo-source';
import { isDuplicateKeyError } from '../shared/db/duplicate-key';
import { groupCommit } from '../shared/db/group-commit';

export interface QrServiceContext {
  publicUrl: string;
  logo: LogoOptions;
  queue: QrRenderQueue;
  logger: Logger;
  visits: Pick<Visits, 'deleteVisits'>;
  /** The public routes' cache of codes by alias. */
  lookups: Primable<QrCodeRecord>;
}

/** What creating a code needs: an import creates them where no visits are ever deleted. */
export type QrCreateContext = Omit<QrServiceContext, 'visits'>;

/** The QR service's context as the API builds it from the app's dependencies. */
export function qrServiceContext(
  deps: Pick<AppDeps, 'config' | 'qrQueue' | 'logger' | 'redis' | 'keys' | 'cacheClock'> & {
    visits: QrServiceContext['visits'];
  },
): QrServiceContext {
  const { config } = deps;
  return {
    publicUrl: config.publicUrl,
    logo: { logoDir: config.logoDir, allowPrivate: config.logoAllowPrivate },
    queue: deps.qrQueue,
    logger: deps.logger,
    visits: deps.visits,
    lookups: qrLookupCacheFor(deps),
  };
}

// The owned-record helpers take a plain Model<T>; this schema has no version key to match it.
const ownedQrCodes = QrCode as Model<QrCodeRecord>;
const LABEL = 'QR code';

const ALIAS_CHARS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
export const ALIAS_PATTERN = /^[A-Za-z0-9]{8}$/;

function newAlias(): string {
  let alias = '';
  for (let i = 0; i < 8; i += 1) alias += ALIAS_CHARS[randomInt(ALIAS_CHARS.length)];
  return alias;
}

export function dynamicUrl(publicUrl: string, alias: string): string {
  return `${publicUrl}/s/${alias}`;
}

interface Rendering {
  content: QrContent;
  background: string;
  foreground: string;
  logo: string | null;
  size: number;
  style: QrStyle | null;
}

/** A design that would not scan is refused here, naming the part to change. */
function checkDesign(r: Rendering, matrix: Matrix): void {
  const problem = designProblem({
    style: r.style,
    foreground: parseRgb(r.foreground) ?? { r: 0, g: 0, b: 0 },
    background: parseRgb(r.background) ?? { r: 255, g: 255, b: 255 },
    matrix,
    hasLogo: Boolean(r.logo),
  });
  if (problem) throw validation(problem.message, problem.field);
}

/** Width of the drawing in modules: quiet zone, and a frame's border, included. */
function drawingWidth(r: Rendering, modules: number): number {
  const frame = r.style?.frame && r.style.frame.type !== 'none' ? 2 : 0;
  return modules + 2 * marginOf(r.style) + frame;
}

/** The slow check (it may resolve DNS or read a file), so it runs after the cheap ones. */
async function checkLogo(r: Rendering, ctx: QrCreateContext): Promise<void> {
  if (!r.logo) return;
  try {
    await checkLogoAtOnce(r.logo, ctx.logo);
  } catch (err) {
    if (err instanceof LogoError) throw validation(err.message, 'logo');
    throw err;
  }
}

/** The payload for this alias, refused when no QR version or no image of this size can hold it. */
function payloadFor(r: Rendering, alias: string, ctx: QrCreateContext): string {
  const payload = encodeQrPayload(r.content, dynamicUrl(ctx.publicUrl, alias));
  const matrix = qrMatrix(payload, errorCorrectionOf(r.style, Boolean(r.logo)), 0);
  if (!matrix) throw validation('data is too long to fit in a QR code', 'data');
  const width = drawingWidth(r, matrix.modules);
  const perModule = isStyled(r.style) ? r.size / width : modulePixels(r.size, width);
  if (perModule < MIN_MODULE_PIXELS) {
    throw validation(
      `size ${r.size} px is too small for this much data: at least ${width * MIN_MODULE_PIXELS} px is needed`,
      'size',
    );
  }
  checkDesign(r, matrix);
  return payload;
}

/** The document is the record of intent: if Redis drops the job, the worker's sweep re-queues it. */
async function queueRender(ctx: QrCreateContext, qr: QrCodeRecord) {
  try {
    await ctx.queue.enqueue(qrRenderJobFor(qr));
  } catch (err) {
    ctx.logger.warn(
      { err: (err as Error).message, qrId: qr.id, renderVersion: qr.renderVersion },
      'render job not queued; the worker sweep will queue it',
    );
  }
}

const asError = (err: unknown) => (err instanceof Error ? err : new Error(String(err)));

/**
 * The codes created together (a burst of requests) go to the database in one insert. If it fails
 * (an alias taken), MongoDB has stored the others and the embedded engine none of them
 * (docs/mongodb-compatibility.md): which are stored is read back, and the rest are inserted one
 * by one, so each request gets its own answer (a duplicate alias to the one that drew it).
 */
const insertCode = groupCommit<QrCodeRecord, true>(async (codes) => {
  try {
    await QrCode.collection.insertMany(
      codes.map((c) => ({ ...c })),
      { ordered: false },
    );
    return codes.map(() => true);
  } catch (err) {
    if (codes.length === 1) return [asError(err)];
  }
  const stored = await QrCode.collection
    .find<Pick<QrCodeRecord, 'id' | 'alias'>>({ id: { $in: codes.map((c) => c.id) } })
    .toArray();
  return Promise.all(
    codes.map((code) =>
      stored.some((s) => s.id === code.id && s.alias === code.alias)
        ? true
        : QrCode.collection.insertOne({ ...code }).then(
            () => true as const,
            (err: unknown) => asError(err),
          ),
    ),
  );
});

/** Where an import puts a code: the alias it had (refused when taken unless renamed), its date. */
export interface QrPlacement {
  alias?: string;
  renameIfTaken?: boolean;
  createdAt?: Date;
}

export async function createQr(
  userId: number,
  input: QrCreate,
  ctx: QrCreateContext,
  placement: QrPlacement = {},
): Promise<QrCodeRecord> {
  if (placement.alias !== undefined && !ALIAS_PATTERN.test(placement.alias))
    throw validation(`alias ${placement.alias} is not 8 letters or digits`, 'alias');
  const rendering: Rendering = {
    content: parseQrContent(input.type, input.data),
    background: input.background ?? DEFAULT_BACKGROUND,
    foreground: input.foreground ?? DEFAULT_FOREGROUND,
    logo: input.logo || null,
    size: input.size ?? DEFAULT_SIZE,
    style: input.style ?? null,
  };
  let alias = placement.alias ?? newAlias();
  let payload = payloadFor(rendering, alias, ctx);
  await checkLogo(rendering, ctx);
  const id = await nextId('qr');
  for (let attempt = 0; ; attempt += 1) {
    const now = new Date();
    try {
      // Every field is set here, validated above: the driver's insert skips mongoose's document.
      const created: QrCodeRecord = {
        id,
        userId,
        alias,
        name: input.name ?? '',
        type: rendering.content.type,
        data: rendering.content.data,
        status: 'pending',
        failureReason: null,
        createdAt: placement.createdAt ?? now,
        payload,
        background: rendering.background,
        foreground: rendering.foreground,
        logo: rendering.logo,
        style: rendering.style,
        size: rendering.size,
        format: input.format ?? 'png',
        renderVersion: 1,
        updatedAt: now,
        renderedAt: null,
      };
      await insertCode(created);
      await ctx.lookups.invalidate([alias]);
      // The first poll for the image then needs no read; queued after, so no render can end first.
      ctx.lookups.prime(alias, created);
      await queueRender(ctx, created);
      return created;
    } catch (err) {
      if (!isDuplicateKeyError(err, 'alias') || attempt >= 3) throw err;
      if (alias === placement.alias && !placement.renameIfTaken)
        throw conflict(`alias ${alias} is already taken`);
      alias = newAlias();
      payload = payloadFor(rendering, alias, ctx);
    }
  }
}

/** Re-renders with the new content; fields not sent keep their stored values. */
export async function updateQr(
  userId: number,
  id: number,
  input: QrUpdate,
  ctx: QrServiceContext,
): Promise<void> {
  const current = await getQr(userId, id);
  const type = (input.type ?? current.type) as QrType;
  const rendering: Rendering = {
    content: parseQrContent(type, input.data),
    background: input.background ?? current.background,
    foreground: input.foreground ?? current.foreground,
    logo: input.logo === undefined ? (current.logo ?? null) : input.logo || null,
    size: input.size ?? current.size,
    style: input.style === undefined ? ((current.style as QrStyle | null) ?? null) : input.style,
  };
  const payload = payloadFor(rendering, current.alias, ctx);
  await checkLogo(rendering, ctx);
  const set: Record<string, unknown> = {
    type,
    data: rendering.content.data,
    payload,
    background: rendering.background,
    foreground: rendering.foreground,
    logo: rendering.logo,
    style: rendering.style,
    size: rendering.size,
    status: 'pending',
    failureReason: null,
    updatedAt: new Date(),
  };
  if (input.name !== undefined) set.name = input.name;
  if (input.format !== undefined) set.format = input.format;
  const updated = await QrCode.findOneAndUpdate(
    { id, userId },
    { $set: set, $inc: { renderVersion: 1 } },
    { returnDocument: 'after' },
  ).lean();
  if (!updated) throw notFound(`${LABEL} not found`);
  await ctx.lookups.invalidate([updated.alias]);
  await queueRender(ctx, updated);
}

export async function deleteQr(userId: number, id: number, ctx: QrServiceContext): Promise<void> {
  const { alias } = await getQr(userId, id);
  await deleteOwned(ownedQrCodes, userId, id, LABEL);
  await ctx.lookups.invalidate([alias]);
  // A render finishing after this point finds no document and removes what it wrote.
  await deleteImages(id);
  await ctx.visits.deleteVisits({ kind: 'qr', id, userId });
  await unassignEverywhere('qr', id);
}

export function listQrs(userId: number, query: PageQuery) {
  return listOwned(ownedQrCodes, userId, query);
}

/** The print check of a code for a scanning distance in metres. */
export function printCheckOf(qr: QrCodeRecord, distance: number): PrintCheck {
  const style = (qr.style as QrStyle | null) ?? null;
  const hasLogo = Boolean(qr.logo);
  const matrix = qrMatrix(qr.payload, errorCorrectionOf(style, hasLogo), 0);
  if (!matrix) throw validation('the QR code no longer fits its payload');
  return printCheck({
    distance,
    matrix,
    style,
    foreground: parseRgb(qr.foreground) ?? { r: 0, g: 0, b: 0 },
    background: parseRgb(qr.background) ?? { r: 255, g: 255, b: 255 },
    hasLogo,
    defaultWidthMm: (qr.size * POINTS_PER_PIXEL * 25.4) / 72,
  });
}

/** The caller's QR code; another user's is reported exactly like a missing one. */
export function getQr(userId: number, id: number): Promise<QrCodeRecord> {
  return findOwned(ownedQrCodes, userId, id, LABEL);
}

/** The public side's lookup; undefined for anything that is not one of our aliases. */
export async function findQrByAlias(alias: string): Promise<QrCodeRecord | undefined> {
  if (!ALIAS_PATTERN.test(alias)) return undefined;
  // With the driver: a string equality needs no casting (measured: half the cost of mongoose's).
  return (await QrCode.collection.findOne<QrCodeRecord>({ alias })) ?? undefined;
}
