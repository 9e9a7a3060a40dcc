import express, { Router, type Request, type Response } from 'express';
import type { AppDeps } from '../deps';
import { brandedDomainOf, sendPublicNotFound } from '../shared/http/public-context';
import { verifyPassword } from '../shared/secrets';
import { linkCacheFor, linkCacheKey, type LinkTarget } from './link-cache';
import { DEFAULT_DOMAIN_ID } from './link.model';
import { findLinkTarget } from './links.service';
import { PasswordGuard } from './password-guard';
import { ALIAS_SHAPE, decideRedirect, toLinkTarget } from './redirect';
import { sendLinkGone, sendPasswordForm, sendTooManyAttempts } from './redirect.pages';

/**
 * `GET /:alias`, the hot path: in the steady state it reads only the in-process cache, and the
 * click is queued by the visits module without being awaited.
 */
export function redirectRouter(deps: AppDeps): Router {
  const cache = linkCacheFor(deps);
  // The counters live 15 minutes; the hash only keeps raw addresses out of Redis key names.
  const guard = new PasswordGuard(deps.redis, deps.keys, deps.config.visitorSalt ?? '');
  const router = Router();

  async function resolve(req: Request, res: Response): Promise<LinkTarget | null> {
    const alias = req.params.alias as string;
    if (!ALIAS_SHAPE.test(alias)) return null;
    const domainId = brandedDomainOf(res)?.id ?? DEFAULT_DOMAIN_ID;
    return cache.resolve(linkCacheKey(domainId, alias), async () =>
      toLinkTarget(await findLinkTarget(domainId, alias)),
    );
  }

  function redirect(req: Request, res: Response, target: LinkTarget): void {
    // HEAD is what link unfurlers and monitors send: not a visit.
    if (req.method !== 'HEAD') deps.visits.record({ kind: 'link', id: target.id }, req);
    res.setHeader('Cache-Control', 'private, no-store');
    res.redirect(302, target.url);
  }

  router.get('/:alias', async (req, res) => {
    const target = await resolve(req, res);
    if (!target) return sendPublicNotFound(res, req.path);
    const decision = decideRedirect(target, Date.now());
    if (decision.kind === 'gone') return sendLinkGone(res);
    if (decision.kind === 'password') return sendPasswordForm(res, 200, req.params.alias);
    redirect(req, res, target);
  });

  router.post(
    '/:alias',
    express.urlencoded({ extended: false, limit: '4kb', parameterLimit: 10 }),
    async (req, res) => {
      const target = await resolve(req, res);
      if (!target) return sendPublicNotFound(res, req.path);
      const decision = decideRedirect(target, Date.now());
      if (decision.kind === 'gone') return sendLinkGone(res);
      if (decision.kind === 'redirect' || !target.passwordHash) return redirect(req, res, target);
      const ip = req.ip ?? 'unknown';
      const wait = await guard.retryAfter(target.id, ip);
      if (wait > 0) return sendTooManyAttempts(res, wait);
      const body = req.body as Record<string, unknown> | undefined;
      const password = typeof body?.password === 'string' ? body.password : '';
      if (password && (await verifyPassword(password, target.passwordHash))) {
        await guard.succeeded(target.id, ip);
        return redirect(req, res, target);
      }
      await guard.failed(target.id, ip);
      sendPasswordForm(res, 401, req.params.alias);
    },
  );

  return router;
}
