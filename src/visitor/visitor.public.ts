import type { Request, Response } from 'express';
import { isbot } from 'isbot';
import type { AppDeps } from '../deps';
import { issueContactToken } from '../overlays/contact-token';
import { brandedDomainOf } from '../shared/http/public-context';
import type { VisitorBehaviour } from '../links/link-behaviour.service';
import type { LinkTarget } from '../links/link-cache';
import { sendAppPage } from './app-page';
import { chooseDestination, isAppUrl } from './redirect';
import {
  framePage,
  pixelPage,
  previewPage,
  splashPage,
  type VisitorPage,
} from '../visitor/visitor-pages';

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

  /**
   * Pages rendered for a cached behaviour, by origin and destination: they are the same for every
   * visitor until the link changes (and its cached target with them). Contact forms are not kept:
   * each carries a fresh token.
   */
  const rendered = new WeakMap<VisitorBehaviour, Map<string, VisitorPage>>();
  function memo(behaviour: VisitorBehaviour, key: string, render: () => VisitorPage): VisitorPage {
    let pages = rendered.get(behaviour);
    if (!pages) rendered.set(behaviour, (pages = new Map()));
    let page = pages.get(key);
    if (!page) pages.set(key, (page = render()));
    return page;
  }

  return function respond(req: Request, res: Response, target: LinkTarget): void {
    const behaviour = target.behaviour;
    if (!behaviour) throw new Error('visitor pages need a target with behaviour');
    const alias = req.params.alias as string;
    const origin = originOf(res);
    const meta = behaviour.meta;
    if (meta && isbot(header(req, 'user-agent'))) {
      const preview = memo(behaviour, `preview ${origin}`, () =>
        previewPage(meta, `${origin}/${alias}`),
      );
      return sendVisitorPage(res, preview);
    }
    const chosen = chooseDestination(req, res, target, countryHeader);
    if (req.method !== 'HEAD')
      deps.visits.record({ kind: 'link', id: target.id, variant: chosen.variant }, req);
    // Pages and pixels are skipped for an app URL: only the app page may open one.
    if (isAppUrl(chosen.url)) return sendAppPage(res, chosen.url, target.url);
    const destination = chosen.url;
    const { pixels } = behaviour;
    const overlay = behaviour.type === 'overlay' ? behaviour.overlay : null;
    if (overlay?.type === 'contact') {
      const token = issueContactToken(
        (text) => deps.visits.hashAddress(text),
        target.id,
        overlay.id,
        Date.now(),
      );
      const contact = { action: `/${alias}/contact`, token };
      const page = framePage({
        destination,
        title: behaviour.title,
        pixels,
        selfOrigin: new URL(origin).origin,
        overlay,
        contact,
      });
      return sendVisitorPage(res, page);
    }
    const key = `${origin} ${destination}`;
    switch (behaviour.type) {
      case 'splash':
        return sendVisitorPage(
          res,
          memo(behaviour, key, () => splashPage(destination, behaviour.splash, pixels)),
        );
      case 'frame':
      case 'overlay':
        return sendVisitorPage(
          res,
          memo(behaviour, key, () =>
            framePage({
              destination,
              title: behaviour.title,
              pixels,
              selfOrigin: new URL(origin).origin,
              overlay,
            }),
          ),
        );
      default:
        if (pixels.length)
          return sendVisitorPage(
            res,
            memo(behaviour, key, () => pixelPage(destination, pixels)),
          );
        res.statusCode = 302;
        res.setHeader('Location', destination);
        res.setHeader('Cache-Control', 'private, no-store');
        res.setHeader('Content-Length', '0');
        res.end();
    }
  };
}
