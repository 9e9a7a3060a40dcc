import { Router, type Response } from 'express';
import { Zip, ZipDeflate, ZipPassThrough } from 'fflate';
import Joi from 'joi';
import { currentUser } from '../auth/auth.middleware';
import type { AppDeps } from '../deps';
import { withPlanSlot } from '../plans/plan-lock';
import { planLimitReached, planRoom } from '../plans/plans.service';
import { badRequest, conflict, notFound } from '../shared/errors/app-error';
import {
  BULK_MAX_ITEMS,
  bulkBodySchema,
  bulkResponse,
  itemValidator,
  runBulk,
  settle,
  type BulkOutcome,
} from '../shared/http/bulk';
import { endpoint } from '../shared/http/endpoint';
import { idJson, sendData, urlJson } from '../shared/http/responses';
import { validatedQuery } from '../shared/http/validate';
import { QrCode, type QrCodeRecord } from './qr-code.model';
import { qrLink } from './qr-codes.presenter';
import { qrCreateSchema, type QrCreate } from './qr-codes.schemas';
import { createQr, qrServiceContext } from './qr-codes.service';
import { findImage } from './qr-images';
import { IMAGE_FORMATS, type ImageFormat } from './qr-variants';
import { awaitVariant, type VariantWaitDeps } from './qr-variant-wait';
import { qrImageCacheFor } from './qr-image-cache';

const tag = 'QR codes';
/**
 * How long a ZIP of print files waits for the worker at least: an owner's download of up to 100
 * drawings, not an `<img>` on a page, so worth a longer wait than `QR_IMAGE_WAIT_MS`.
 */
const ZIP_DRAW_WAIT_MS = 30_000;

const downloadQuery = Joi.object({
  ids: Joi.string()
    .pattern(/^\d+(,\d+)*$/)
    .required()
    .messages({ 'string.pattern.base': '{#label} must be QR code ids separated by commas' })
    .description(`up to ${BULK_MAX_ITEMS} ids, comma-separated`),
  format: Joi.string()
    .valid(...IMAGE_FORMATS)
    .default('png'),
});

const api = {
  create: endpoint({
    tag,
    summary: `Create up to ${BULK_MAX_ITEMS} QR codes at once`,
    description:
      'Each item is a `qr/add` body; one result per item, in order: `{error: 0, id, link}` or `{error: 1, message, code, field}`.',
    scope: 'qr:write',
    body: bulkBodySchema('qrs', 'a qr/add body'),
    responses: { 200: bulkResponse({ id: idJson, link: urlJson }, 'One result per item') },
    errors: [403],
  }),
  download: endpoint({
    tag,
    summary: 'A ZIP of QR code images',
    description:
      'One file per code (`{name or qr}-{id}.{format}`), streamed as the images are read. Every code must be yours and rendered. PDF and EPS are drawn by the worker first, waited for up to 30 s (or `QR_IMAGE_WAIT_MS` if longer); a 409 says when some are still being drawn.',
    scope: 'qr:read',
    query: downloadQuery,
    responses: { 200: { description: 'The ZIP', media: ['application/zip'] } },
    errors: [404, 409],
  }),
};

/** A file name from the code's name, kept to letters, digits, dashes and dots. */
function fileName(qr: QrCodeRecord, format: ImageFormat): string {
  const base = (qr.name || 'qr').replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^-+|-+$/g, '');
  return `${(base || 'qr').slice(0, 60)}-${qr.id}.${format}`;
}

async function storedImage(qr: QrCodeRecord, format: ImageFormat): Promise<Buffer> {
  const stored = await findImage(qr.id, qr.renderVersion, format);
  if (!stored) throw conflict(`QR code ${qr.id} has no ${format} image yet`);
  return stored.bytes;
}

/**
 * PDF and EPS are drawn by the worker: every code's is asked for at once, and waited for before
 * the ZIP starts, so that a code still being drawn is a 409 rather than a ZIP cut short.
 */
async function drawnImages(
  deps: VariantWaitDeps,
  codes: QrCodeRecord[],
  format: 'pdf' | 'eps',
): Promise<Map<number, Buffer>> {
  const drawn = await Promise.all(
    codes.map(async (qr) => {
      const image = await awaitVariant(deps, qr, { format });
      if (!image) throw conflict(`QR code ${qr.id}'s ${format} is still being drawn; try again`);
      return [qr.id, image.bytes] as const;
    }),
  );
  return new Map(drawn);
}

/** Writes the ZIP as fflate produces it, waiting for the socket when it is full. */
async function streamZip(
  res: Response,
  files: Array<{ name: string; bytes: () => Promise<Buffer> }>,
) {
  res.setHeader('Content-Type', 'application/zip');
  res.setHeader('Content-Disposition', 'attachment; filename="qr-codes.zip"');
  let pending: Promise<void> = Promise.resolve();
  const zip = new Zip((err, chunk, final) => {
    if (err) {
      res.destroy(err);
      return;
    }
    const ok = res.write(Buffer.from(chunk));
    if (!ok) pending = new Promise((resolve) => res.once('drain', () => resolve()));
    if (final) res.end();
  });
  for (const file of files) {
    const bytes = await file.bytes();
    // PNG is compressed already; the text formats deflate well.
    const entry = file.name.endsWith('.png')
      ? new ZipPassThrough(file.name)
      : new ZipDeflate(file.name, { level: 6 });
    zip.add(entry);
    entry.push(bytes, true);
    await pending;
  }
  zip.end();
}

/** POST /api/qr/bulk and GET /api/qr/download; mounted before `/qr/:id`. */
export function qrBulkRouter(deps: AppDeps): Router {
  const { config } = deps;
  const ctx = qrServiceContext(deps);
  const variants: VariantWaitDeps = {
    queue: deps.qrQueue,
    images: qrImageCacheFor(deps),
    logger: deps.logger,
    waitMs: Math.max(config.qrImageWaitMs, ZIP_DRAW_WAIT_MS),
  };
  const router = Router();

  router.post('/qr/bulk', api.create, async (req, res) => {
    const user = currentUser(req);
    const { qrs } = req.body as { qrs: unknown[] };
    const results = await runBulk(qrs, itemValidator<QrCreate>(qrCreateSchema), (valid) =>
      // Counted and stored holding the user's slot (plan-lock.ts), as qr/add and imports do:
      // without it, a qr/add or an import running meanwhile passed the same count.
      withPlanSlot(deps, config.plans, user, 'maxQrCodes', async () => {
        const room = await planRoom(config.plans, user, 'maxQrCodes', (userId) =>
          QrCode.countDocuments({ userId }),
        );
        const outcomes: Array<BulkOutcome<{ id: number; link: string }>> = [];
        for (const [i, { value }] of valid.entries()) {
          if (i >= room) {
            outcomes.push(planLimitReached(config.plans, user, 'maxQrCodes'));
            continue;
          }
          const made = await settle(createQr(user.id, value, ctx));
          outcomes.push(
            made instanceof Error
              ? made
              : { id: made.id, link: qrLink(config.publicUrl, made.alias) },
          );
        }
        return outcomes;
      }),
    );
    sendData(res, { data: results });
  });

  router.get('/qr/download', api.download, async (req, res) => {
    const userId = currentUser(req).id;
    const { ids, format } = validatedQuery<{ ids: string; format: ImageFormat }>(res);
    const wanted = [...new Set(ids.split(',').map(Number))];
    if (wanted.length > BULK_MAX_ITEMS) {
      throw badRequest(`ids may name at most ${BULK_MAX_ITEMS} QR codes`);
    }
    const found = await QrCode.find({ userId, id: { $in: wanted } }).lean();
    const byId = new Map(found.map((qr) => [qr.id, qr as QrCodeRecord]));
    const missing = wanted.find((id) => !byId.has(id));
    if (missing !== undefined) throw notFound(`QR code ${missing} not found`);
    const unready = found.find((qr) => qr.status !== 'ready');
    if (unready) throw conflict(`QR code ${unready.id} is ${unready.status}, not rendered`);
    const codes = wanted.map((id) => byId.get(id) as QrCodeRecord);
    const drawn =
      format === 'pdf' || format === 'eps' ? await drawnImages(variants, codes, format) : null;
    await streamZip(
      res,
      codes.map((qr) => ({
        name: fileName(qr, format),
        bytes: async () => drawn?.get(qr.id) ?? storedImage(qr, format),
      })),
    );
  });

  return router;
}
