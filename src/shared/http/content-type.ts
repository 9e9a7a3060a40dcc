import type { RequestHandler } from 'express';
import { unsupportedMediaType } from '../errors/app-error';

const writeMethods = new Set(['POST', 'PUT', 'PATCH']);
/** Routes that take a file upload (`multipart/form-data`) as well as JSON. */
const uploadPaths = new Set(['/import']);

/** Writes that carry a body must send it as JSON (415 otherwise); bodiless POSTs such as assign are fine. */
export const requireJsonBody: RequestHandler = (req, _res, next) => {
  if (!writeMethods.has(req.method)) return next();
  const hasBody =
    req.headers['transfer-encoding'] !== undefined ||
    Number(req.headers['content-length'] ?? 0) > 0;
  const upload = uploadPaths.has(req.path) && req.is('multipart/form-data');
  if (hasBody && !upload && !req.is('application/json')) {
    return next(unsupportedMediaType('Request body must be JSON (Content-Type: application/json)'));
  }
  next();
};
