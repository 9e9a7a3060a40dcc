import path from 'node:path';
import express, { Router, type RequestHandler } from 'express';
import Joi from 'joi';
import { getAbsoluteFSPath } from 'swagger-ui-dist';
import { endpoint } from '../shared/http/endpoint';
import type { OpenApiDocument } from './openapi.document';

export const DOCUMENT_PATH = '/api/openapi.json';

const openApiDoc = endpoint({
  tag: 'Operations',
  summary: 'This OpenAPI 3.1 document',
  public: true,
  responses: {
    200: {
      description: 'The document',
      schema: Joi.object({ openapi: Joi.string().valid('3.1.0').required() }).unknown(true),
    },
  },
});

/** `GET /api/openapi.json`, mounted before authentication: describing the API needs no key. */
export function openApiRouter(document: () => OpenApiDocument): Router {
  const router = Router();
  router.get('/openapi.json', openApiDoc, (_req, res) => {
    res.setHeader('Cache-Control', 'no-cache');
    res.json(document());
  });
  return router;
}

/**
 * The docs page runs Swagger UI from the npm package, served by the app itself: scripts only
 * from this origin, no inline script (the initialiser is a file too), no external validator.
 */
export const DOCS_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  // Swagger UI sets style attributes from script (React); no stylesheet comes from elsewhere.
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'self'",
].join('; ');

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1">
<title>linkqr API</title>
<link rel="stylesheet" href="/docs/assets/swagger-ui.css">
<link rel="icon" type="image/png" href="/docs/assets/favicon-32x32.png">
</head>
<body>
<div id="swagger-ui"></div>
<script src="/docs/assets/swagger-ui-bundle.js"></script>
<script src="/docs/assets/init.js"></script>
</body>
</html>
`;

const INIT = `window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({
    url: '${DOCUMENT_PATH}',
    dom_id: '#swagger-ui',
    deepLinking: true,
    validatorUrl: null,
    presets: [SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout',
  });
});
`;

const ASSETS = new Set(['swagger-ui.css', 'swagger-ui-bundle.js', 'favicon-32x32.png']);

const withDocsCsp: RequestHandler = (_req, res, next) => {
  res.setHeader('Content-Security-Policy', DOCS_CSP);
  next();
};

const docsPage = endpoint({
  tag: 'Operations',
  summary: 'This document, rendered by Swagger UI',
  responses: { 200: { description: 'The docs page', media: ['text/html'] } },
});

/** `/docs`: the page and the few Swagger UI files it loads. */
export function docsRouter(): Router {
  const router = Router();
  const files = express.static(getAbsoluteFSPath(), { index: false, maxAge: '1d' });
  router.get('/docs', docsPage, withDocsCsp, (_req, res) => {
    res.type('html').send(PAGE);
  });
  router.use('/docs/assets', withDocsCsp, (req, res, next) => {
    const name = path.posix.basename(req.path);
    if (req.path === '/init.js') return res.type('js').send(INIT);
    if (req.path === `/${name}` && ASSETS.has(name)) return files(req, res, next);
    next();
  });
  return router;
}
