import type { Request, Response } from 'express';
import { isbot } from 'isbot';
import type { AppDeps } from '../deps';
import { issueContactToken } from '../overlays/contact-token';
import { brandedDomainOf } from '../shared/http/public-context';
import { resolveCountry } from '../shared/visits/visit-capture';
import type { VisitorBehaviour } from './link-behaviour.service';
import type { LinkTarget } from './link-cache';
import { pickTarget } from './link-targeting';
import { framePage, pixelPage, previewPage, splashPage, type VisitorPage } from './visitor-pages';

function header(req: Request, name: string): string {
  const value = req.headers[name];
  return (Array.isArray(value) ? value[0] : value) ?? '';
}

export function sendVisitorPage(res: Response, page: VisitorPage): void {
  res.setHeader('Content-Security-Policy', page.policy);
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.setHeader('Cache-Control', 'private, no-store');
  res.status(200).type('html').send(page.body);
}

/** Link-preview crawlers get the link's preview tags instead of the link, when it has any. */
export function wantsPreview(
  req: Request,
  behaviour: VisitorBehaviour | null | undefined,
): boolean {
  return !!behaviour?.meta && isbot(header(req, 'user-agent'));
}

/**
 * What a visitor meets on a link with behaviour (a link without stays the router's bare 302):
 * the preview page for crawlers, else the targeted destination as a 302, a pixel page, a splash
 * page, or the framed target with or without its overlay. Everything comes from the cached
 * target; the click is recorded once, here, for every answer but the preview.
 */
export function visitorResponder(deps: AppDeps) {
  const { countryHeader, publicUrl } = deps.config;

  function originOf(res: Response): string {
    return brandedDomainOf(res)?.domain ?? publicUrl;
  }

  return function respond(req: Request, res: Response, target: LinkTarget): void {
    const behaviour = target.behaviour;
    if (!behaviour) throw new Error('visitor pages need a target with behaviour');
    const alias = req.params.alias as string;
    if (behaviour.meta && isbot(header(req, 'user-agent'))) {
      return sendVisitorPage(res, previewPage(behaviour.meta, `${originOf(res)}/${alias}`));
    }
    const destination =
      pickTarget(behaviour.targeting, () => ({
        country: resolveCountry(
          req.ip ?? '',
          countryHeader ? header(req, countryHeader) || undefined : undefined,
        ),
        userAgent: header(req, 'user-agent'),
        acceptLanguage: header(req, 'accept-language') || undefined,
      })) ?? target.url;
    if (req.method !== 'HEAD') deps.visits.record({ kind: 'link', id: target.id }, req);
    const { pixels } = behaviour;
    switch (behaviour.type) {
      case 'splash':
        return sendVisitorPage(res, splashPage(destination, behaviour.splash, pixels));
      case 'frame':
      case 'overlay': {
        const overlay = behaviour.type === 'overlay' ? behaviour.overlay : null;
        const contact =
          overlay?.type === 'contact'
            ? {
                action: `/${alias}/contact`,
                token: issueContactToken(
                  (text) => deps.visits.hashAddress(text),
                  target.id,
                  overlay.id,
                  Date.now(),
                ),
              }
            : null;
        return sendVisitorPage(
          res,
          framePage({
            destination,
            title: behaviour.title,
            pixels,
            selfOrigin: new URL(originOf(res)).origin,
            overlay,
            contact,
          }),
        );
      }
      default:
        if (pixels.length) return sendVisitorPage(res, pixelPage(destination, pixels));
        res.statusCode = 302;
        res.setHeader('Location', destination);
        res.setHeader('Cache-Control', 'private, no-store');
        res.setHeader('Content-Length', '0');
        res.end();
    }
  };
}
