import type { RequestHandler } from 'express';
import type { AppDeps } from '../deps';
import { routeTemplateOf } from '../shared/http/endpoint';
import { appendAuditEntry } from './audit-append';
import { recordIdOf, recordTypeOf, summariseChanges } from './audit-summary';

const READS = new Set(['GET', 'HEAD', 'OPTIONS']);
const DAY_MS = 86_400_000;

/** `:name` segments of the route's template, read from the path the request took. */
function pathParams(template: string, path: string): Record<string, string> {
  const names = template.split('/');
  const values = path.split('/');
  const params: Record<string, string> = {};
  if (names.length !== values.length) return params;
  names.forEach((name, i) => {
    if (name.startsWith(':')) params[name.slice(1)] = decodeURIComponent(values[i] ?? '');
  });
  return params;
}

/**
 * Appends every successful write of a signed-in caller to the audit log, once the answer has
 * been sent (never delaying it): who (user, key or session, acting account), what (route, record
 * type and id, the fields set without secrets), when and from which address. `skip` names the
 * paths that write nothing (a form check, a preview, signing in).
 */
export function auditWrites(
  deps: Pick<AppDeps, 'config' | 'logger'>,
  skip?: RegExp,
): RequestHandler {
  const retentionMs = deps.config.auditRetentionDays * DAY_MS;
  return (req, res, next) => {
    if (READS.has(req.method) || skip?.test(req.path)) return next();
    let answered: unknown;
    const json = res.json.bind(res);
    res.json = (body: unknown) => {
      answered = body;
      return json(body);
    };
    res.on('finish', () => {
      const auth = req.auth;
      if (res.statusCode >= 400 || !auth || !('user' in auth)) return;
      const path = req.originalUrl.split('?')[0] ?? req.originalUrl;
      const route = routeTemplateOf(res) ?? path;
      const at = new Date();
      const entry = {
        at,
        expiresAt: new Date(at.getTime() + retentionMs),
        accountId: auth.user.id,
        actorId: (auth.actor ?? auth.user).id,
        keyId: auth.key?.id ?? null,
        via: auth.key ? ('key' as const) : ('session' as const),
        method: req.method,
        route,
        type: recordTypeOf(route),
        recordId: recordIdOf(pathParams(route, path), answered),
        changes: summariseChanges(req.body),
        ip: req.ip ?? null,
      };
      appendAuditEntry(entry).catch((err: unknown) =>
        deps.logger.error({ err, route }, 'could not append to the audit log'),
      );
    });
    next();
  };
}
