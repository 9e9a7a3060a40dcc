import { Router, type Response } from 'express';
import Joi from 'joi';
import { endpoint } from '../shared/http/endpoint';
import { notFoundResponses, VISITOR_ERRORS } from '../shared/http/pages';
import {
  brandedDomainOf,
  sendPublicNotFound,
  type BrandedDomainContext,
} from '../shared/http/public-context';

const tag = 'Visitors';

const files = {
  apple: {
    path: '/.well-known/apple-app-site-association',
    field: 'appleAppSiteAssociation',
    summary: "A branded domain's apple-app-site-association (iOS universal links)",
    schema: Joi.object().unknown(true),
  },
  android: {
    path: '/.well-known/assetlinks.json',
    field: 'assetLinks',
    summary: "A branded domain's assetlinks.json (Android app links)",
    schema: Joi.array(),
  },
} as const;

/**
 * The app-link files of a branded domain, on that domain's host: what iOS and Android fetch to
 * let the app open the domain's links. Served as stored (JSON, `application/json`, no redirect,
 * as both platforms require); a host without the file gets the visitor 404.
 */
export function appLinksRouter(): Router {
  const router = Router();
  for (const file of Object.values(files)) {
    const doc = endpoint({
      tag,
      summary: file.summary,
      description: `Set with the domain's \`${file.field}\` (POST /api/domain/add or /api/domain/:id/update).`,
      responses: { 200: { description: 'The file', schema: file.schema }, ...notFoundResponses },
      errors: VISITOR_ERRORS,
    });
    router.get(file.path, doc, (req, res: Response) => {
      const domain: BrandedDomainContext | undefined = brandedDomainOf(res);
      const body = domain?.[file.field];
      if (!body) return sendPublicNotFound(res, req.path);
      res.setHeader('Cache-Control', 'public, max-age=300');
      res.status(200).type('application/json').send(body);
    });
  }
  return router;
}
