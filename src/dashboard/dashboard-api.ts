import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import express, { Router } from 'express';
import Joi from 'joi';
import { currentUser } from '../auth/auth.middleware';
import type { AppDeps } from '../deps';
import { Link, type LinkRecord } from '../links/link.model';
import { originsOf } from '../links/link-domains';
import { searchFilter } from '../links/link-search';
import { presentHealth } from '../links/link-health';
import { presentLink } from '../links/links.presenter';
import { keysetAfter } from '../links/links.service';
import { styleSchema } from '../qr-codes/design/style';
import { LogoError } from '../qr-codes/logo/logo-errors';
import { LOGO_MAX_BYTES } from '../qr-codes/logo/logo-fetch';
import { assertLogoImage } from '../qr-codes/logo/logo-source';
import { LOGO_UPLOAD_QUOTA, makeRoomForUpload, uploadsDirOf } from '../qr-codes/logo/logo-uploads';
import { QR_TYPES } from '../qr-codes/qr-code.model';
import { dynamicUrl } from '../qr-codes/qr-codes.service';
import { unsupportedMediaType, validation } from '../shared/errors/app-error';
import {
  MAX_LIMIT,
  DEFAULT_LIMIT,
  keysetPageQuerySchema,
  pageQuerySchema,
} from '../shared/http/pagination';
import { sendData, sendList } from '../shared/http/responses';
import { validate, validatedQuery } from '../shared/http/validate';
import { formCheckRouter } from './form-check';
import { renderPreview, type PreviewInput } from './qr-preview';

interface LinkSearch {
  q?: string;
  sort: 'date' | 'clicks';
  page: number;
  limit: number;
  after?: number;
}

const linkSearchSchema = Joi.object<LinkSearch>({
  q: Joi.string().trim().max(200).allow(''),
  sort: Joi.string().valid('date', 'clicks').default('date'),
  page: pageQuerySchema.extract('page'),
  limit: Joi.number().integer().min(1).max(MAX_LIMIT).default(DEFAULT_LIMIT),
  after: keysetPageQuerySchema.extract('after'),
});

const previewSchema = Joi.object<PreviewInput>({
  type: Joi.string()
    .valid(...QR_TYPES)
    .required(),
  data: Joi.any().required(),
  foreground: Joi.string().allow(''),
  background: Joi.string().allow(''),
  logo: Joi.string().allow('', null),
  style: styleSchema,
}).unknown(true);

/** Logo upload for QR codes: the file lands in LOGO_DIR, where the API's `logo` paths point. */
export function logoUpload(deps: AppDeps): Router {
  const { config } = deps;
  const router = Router();
  router.post(
    '/dashboard/logo',
    express.raw({ type: ['image/png', 'image/jpeg'], limit: LOGO_MAX_BYTES }),
    async (req, res) => {
      if (!Buffer.isBuffer(req.body) || req.body.length === 0) {
        throw unsupportedMediaType('Send the logo as image/png or image/jpeg');
      }
      try {
        await assertLogoImage(req.body);
      } catch (err) {
        if (err instanceof LogoError) throw validation(`logo: ${err.message}`);
        throw err;
      }
      const ext = req.is('image/png') ? 'png' : 'jpg';
      const name = `${randomBytes(16).toString('hex')}.${ext}`;
      const userId = currentUser(req).id;
      if (!(await makeRoomForUpload(config.logoDir, userId))) {
        throw validation(
          `logo: all ${LOGO_UPLOAD_QUOTA} uploaded logos are in use by QR codes; delete or change one first`,
        );
      }
      const dir = uploadsDirOf(config.logoDir, userId);
      await mkdir(dir, { recursive: true });
      await writeFile(path.join(dir, name), req.body);
      sendData(res, { logo: `uploads/${currentUser(req).id}/${name}` });
    },
  );
  return router;
}

/**
 * What the dashboard needs beyond the public API, each resting on the same services and
 * presenters: link search and sorting, and the QR live preview.
 */
export function dashboardApi(deps: AppDeps): Router {
  const { config } = deps;
  const router = Router();
  router.use(formCheckRouter());

  router.get('/dashboard/links', validate({ query: linkSearchSchema }), async (req, res) => {
    const query = validatedQuery<LinkSearch>(res);
    const userId = currentUser(req).id;
    const filter: Record<string, unknown> = { userId };
    if (query.q) Object.assign(filter, searchFilter(query.q));
    // `after` (the last link seen): keyset paging in either order, no skip.
    const page =
      query.after === undefined
        ? filter
        : {
            ...filter,
            ...(await keysetAfter(userId, query.after, query.sort === 'clicks' ? 'clicks' : 'id')),
          };
    const skip = query.after === undefined ? (query.page - 1) * query.limit : 0;
    // Both orders walk an index ({userId, id} or {userId, clicks, id}); clicks are on the link.
    const sort: Record<string, 1 | -1> =
      query.sort === 'clicks' ? { clicks: -1, id: -1 } : { id: -1 };
    const [total, items] = await Promise.all([
      Link.countDocuments(filter),
      Link.find(page).sort(sort).skip(skip).limit(query.limit).lean<LinkRecord[]>(),
    ]);
    const clicks = await deps.visits.getClickCounts(
      'link',
      items.map((l) => l.id),
    );
    const origins = await originsOf(items);
    // The list's health badge: what the checks of a monitored link found, null for the others.
    const urls = items.map((l) => ({
      ...presentLink(l, origins, config.publicUrl, clicks.get(l.id) ?? 0),
      health: l.monitor ? presentHealth(l.health) : null,
    }));
    sendList(res, 'urls', urls, total, query);
  });

  router.post('/dashboard/qr-preview', validate({ body: previewSchema }), async (req, res) => {
    const svg = await renderPreview(
      req.body as PreviewInput,
      dynamicUrl(config.publicUrl, 'preview0'),
      { logoDir: config.logoDir, allowPrivate: config.logoAllowPrivate },
    );
    sendData(res, { svg });
  });

  return router;
}
