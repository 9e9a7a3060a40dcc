import express, { Router, type ErrorRequestHandler, type Request } from 'express';
import type { AppDeps } from '../deps';
import { linkCacheFor, linkCacheKey } from '../links/link-cache';
import { DEFAULT_DOMAIN_ID } from '../links/link.model';
import { ALIAS_SHAPE, decideRedirect, loadLinkTarget, storedClicksOf } from '../visitor/redirect';
import { contactAnswerPage } from '../visitor/visitor-pages';
import { sendVisitorPage } from '../visitor/visitor.public';
import { AppError, notFound, tooManyRequests, validation } from '../shared/errors/app-error';
import { failureBody, toAppError } from '../shared/errors/error-handler';
import { endpoint } from '../shared/http/endpoint';
import { pageResponse, VISITOR_ERRORS } from '../shared/http/pages';
import { messageJson } from '../shared/http/responses';
import { brandedDomainOf } from '../shared/http/public-context';
import { assertMongoUp } from '../shared/infra/dependencies';
import { CONTACT_TOKEN_TTL_MS, contactTokenValid } from './contact-token';
import { storeContactResponse } from './overlay-responses.service';
import { contactFormSchema, type ContactForm } from './overlays.schemas';
import { clientKey } from '../shared/http/client-key';

// The form is checked in the handler (after the link is known), so the declaration has no body.
const contactEndpoint = endpoint({
  tag: 'Visitors',
  summary: "Send a contact overlay's form",
  description:
    "An urlencoded form with `name`, `email`, `message` and the page's `token`; answers a thank-you page, or JSON when asked for.",
  responses: {
    200: {
      ...pageResponse(
        'Stored: a thank-you page, or `{"error":0,"message"}` when JSON is asked for',
      ),
      schema: messageJson,
    },
  },
  errors: [...VISITOR_ERRORS, 400, 403, 404, 413, 415, 422, 429],
  jsonFailures: true,
});

/** Messages one visitor may send through one overlay per window. */
export const CONTACT_LIMIT = { perVisitor: 5, windowSeconds: 10 * 60 };

const THANKS = 'Thank you, your message has been sent.';

/**
 * `POST /:alias/contact`: a contact overlay's form. It must carry the token of a page this
 * service served for that link (at most two hours ago), fit in 8 kB, and a visitor may send
 * only a few per window. Script-driven forms get JSON, plain form posts a small page.
 */
export function overlaysPublicRouter(deps: AppDeps): Router {
  const cache = linkCacheFor(deps);
  const hash = (text: string) => deps.visits.hashAddress(text);
  const router = Router();

  async function underLimit(overlayId: number, req: Request): Promise<void> {
    const key = deps.keys.key('overlays', 'contact', overlayId, hash(clientKey(req)));
    // A fixed window from the first message: created with its expiry, then counted.
    const replies = (await deps.redis
      .multi()
      .set(key, 0, 'EX', CONTACT_LIMIT.windowSeconds, 'NX')
      .incr(key)
      .exec()) as Array<[Error | null, unknown]>;
    const count = Number(replies[1]?.[1] ?? 0);
    if (count > CONTACT_LIMIT.perVisitor) {
      const ttl = await deps.redis.ttl(key);
      throw tooManyRequests(
        'Too many messages, try again later.',
        ttl > 0 ? ttl : CONTACT_LIMIT.windowSeconds,
      );
    }
  }

  /** Everyone's messages to one overlay in a UTC day: a form cannot flood its owner's inbox. */
  async function underDailyCap(overlayId: number): Promise<void> {
    const day = new Date().toISOString().slice(0, 10);
    const key = deps.keys.key('overlays', 'contact', overlayId, 'day', day);
    const replies = (await deps.redis
      .multi()
      .incr(key)
      .expire(key, 2 * 86_400)
      .exec()) as Array<[Error | null, unknown]>;
    if (Number(replies[0]?.[1] ?? 0) > deps.config.contactDailyLimit) {
      const midnight = Date.parse(`${day}T00:00:00Z`) + 86_400_000;
      throw tooManyRequests(
        'This form has received all the messages it takes today: try again tomorrow.',
        Math.ceil((midnight - Date.now()) / 1000),
      );
    }
  }

  /** A page's token sends one message: replaying a captured form is refused (issue 29, L2). */
  async function spendToken(token: string): Promise<void> {
    const key = deps.keys.key('overlays', 'contact', 'spent', hash(token));
    const ttl = Math.ceil(CONTACT_TOKEN_TTL_MS / 1000);
    if ((await deps.redis.set(key, 1, 'EX', ttl, 'NX')) === null) {
      throw new AppError(
        403,
        'forbidden',
        'This form has already been sent: reload the page to send another message.',
      );
    }
  }

  router.post(
    '/:alias/contact',
    contactEndpoint,
    express.urlencoded({ extended: false, limit: '8kb', parameterLimit: 10 }),
    async (req, res) => {
      const alias = req.params.alias;
      if (!ALIAS_SHAPE.test(alias)) throw notFound();
      const domainId = brandedDomainOf(res)?.id ?? DEFAULT_DOMAIN_ID;
      const target = await cache.get(linkCacheKey(domainId, alias), async () => {
        assertMongoUp();
        return loadLinkTarget(domainId, alias, storedClicksOf(deps.visits));
      });
      const behaviour = target?.behaviour;
      const overlay = behaviour?.type === 'overlay' ? behaviour.overlay : null;
      if (!target || overlay?.type !== 'contact') throw notFound();
      if (decideRedirect(target, Date.now()).kind === 'gone') throw notFound();
      const { error, value } = contactFormSchema.validate(req.body ?? {}, {
        stripUnknown: true,
        abortEarly: true,
      });
      if (error) {
        const first = error.details[0];
        throw validation(first?.message.replace(/"/g, '') ?? error.message, first?.path.join('.'));
      }
      const form = value as ContactForm;
      if (!contactTokenValid(hash, form.token, target.id, overlay.id, Date.now()))
        throw new AppError(
          403,
          'forbidden',
          'This form has expired: reload the page and try again.',
        );
      await underLimit(overlay.id, req);
      await underDailyCap(overlay.id);
      await spendToken(form.token);
      const { name, email, message } = form;
      if (!(await storeContactResponse(overlay.id, target.id, { name, email, message })))
        throw notFound();
      if (req.accepts(['html', 'json']) === 'json') {
        res.json({ error: 0, message: THANKS });
        return;
      }
      sendVisitorPage(res, contactAnswerPage(THANKS, target.url));
    },
  );

  // The page's script reads failures as JSON (visitors' errors are otherwise HTML pages).
  const jsonErrors: ErrorRequestHandler = (err, req, res, next) => {
    if (req.accepts(['html', 'json']) !== 'json') return next(err);
    const error = toAppError(err);
    if (error.status >= 500) return next(err);
    for (const [name, value] of Object.entries(error.headers)) res.setHeader(name, value);
    res.status(error.status).json(failureBody(error));
  };
  router.use('/:alias/contact', jsonErrors);

  return router;
}
