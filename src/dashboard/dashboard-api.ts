import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import express, { Router } from 'express';
import Joi from 'joi';
import { currentUser } from '../auth/auth.middleware';
import type { AppDeps } from '../deps';
import { Link, type LinkRecord } from '../links/link.model';
import { originsOf } from '../links/link-domains';
import { presentLink } from '../links/links.presenter';
import { LogoError } from '../qr-codes/logo/logo-errors';
import { LOGO_MAX_BYTES } from '../qr-codes/logo/logo-fetch';
import { assertLogoImage } from '../qr-codes/logo/logo-source';
import { QR_TYPES } from '../qr-codes/qr-code.model';
import { dynamicUrl } from '../qr-codes/qr-codes.service';
import { unsupportedMediaType, validation } from '../shared/errors/app-error';
import { MAX_LIMIT, DEFAULT_LIMIT } from '../shared/http/pagination';
import { sendData, sendList } from '../shared/http/responses';
import { validate, validatedQuery } from '../shared/http/validate';
import { formCheckRouter } from './form-check';
import { renderPreview, type PreviewInput } from './qr-preview';

interface LinkSearch {
  q?: string;
  sort: 'date' | 'clicks';
  page: number;
  limit: number;
}

const linkSearchSchema = Joi.object<LinkSearch>({
  q: Joi.string().trim().max(200).allow(''),
  sort: Joi.string().valid('date', 'clicks').default('date'),
  page: Joi.number().integer().min(1).max(1_000_000).default(1),
  limit: Joi.number().integer().min(1).max(MAX_LIMIT).default(DEFAULT_LIMIT),
});

const previewSchema = Joi.object<PreviewInput>({
  type: Joi.string()
    .valid(...QR_TYPES)
    .required(),
  data: Joi.any().required(),
  foreground: Joi.string().allow(''),
  background: Joi.string().allow(''),
  logo: Joi.string().allow('', null),
}).unknown(true);

const escapeRegex = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

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
      const dir = path.resolve(config.logoDir, 'uploads', String(currentUser(req).id));
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
    const filter: Record<string, unknown> = { userId: currentUser(req).id };
    if (query.q) {
      const pattern = { $regex: escapeRegex(query.q), $options: 'i' };
      filter.$or = [{ alias: pattern }, { url: pattern }, { title: pattern }];
    }
    const skip = (query.page - 1) * query.limit;
    let items: LinkRecord[];
    let total: number;
    let clicks: Map<number, number>;
    if (query.sort === 'clicks') {
      // Totals live beside the links, so this ranks the caller's matching links in memory.
      const all = await Link.find(filter).sort({ id: -1 }).lean<LinkRecord[]>();
      clicks = await deps.visits.getClickCounts(
        'link',
        all.map((l) => l.id),
      );
      all.sort((a, b) => (clicks.get(b.id) ?? 0) - (clicks.get(a.id) ?? 0) || b.id - a.id);
      total = all.length;
      items = all.slice(skip, skip + query.limit);
    } else {
      [total, items] = await Promise.all([
        Link.countDocuments(filter),
        Link.find(filter).sort({ id: -1 }).skip(skip).limit(query.limit).lean<LinkRecord[]>(),
      ]);
      clicks = await deps.visits.getClickCounts(
        'link',
        items.map((l) => l.id),
      );
    }
    const origins = await originsOf(items);
    const urls = items.map((l) => presentLink(l, origins, config.publicUrl, clicks.get(l.id) ?? 0));
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
