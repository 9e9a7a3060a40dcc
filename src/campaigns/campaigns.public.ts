import { Router } from 'express';
import Joi from 'joi';
import type { AppDeps } from '../deps';
import { linkParameters } from '../links/link-behaviour.service';
import { isBareRedirect } from '../visitor/redirect';
import { originsOf } from '../links/link-domains';
import { withParameters } from '../links/link-parameters';
import { shortUrlOf } from '../links/short-url';
import { endpoint } from '../shared/http/endpoint';
import {
  escapeHtml,
  notFoundResponses,
  VISITOR_ERRORS,
  redirectResponse,
  sendPage,
} from '../shared/http/pages';
import { record } from '../shared/http/responses';
import { sendPublicNotFound } from '../shared/http/public-context';
import { campaignCacheFor } from './campaign-cache';
import { presentPublicList, publicListJson } from './campaigns.presenter';
import { SLUG_PATTERN } from './campaigns.schemas';
import {
  campaignLinks,
  findCampaignBySlug,
  findPublicCampaign,
  LIST_PAGE_LIMIT,
} from './campaigns.service';
import { pickInRotation, rotatorCounterKey } from './rotation';

const tag = 'Visitors';

const pages = {
  rotator: endpoint({
    tag,
    summary: "A campaign's rotator",
    description: "Redirects to the campaign's links in turn, counting the click.",
    responses: { 302: redirectResponse('To the next link in rotation'), ...notFoundResponses },
    errors: VISITOR_ERRORS,
  }),
  list: endpoint({
    tag,
    summary: "A public campaign's list page",
    description: 'HTML, or JSON when the request prefers `application/json`.',
    responses: {
      200: {
        description: 'The list',
        media: ['text/html'],
        schema: record({ error: Joi.number().valid(0), data: publicListJson }),
      },
      ...notFoundResponses,
    },
    errors: VISITOR_ERRORS,
  }),
};

/** Visitor side of campaigns: the rotator `/r/{slug}` and the public list page. */
export function campaignsPublicRouter(deps: AppDeps): Router {
  const { publicUrl } = deps.config;
  const slugs = campaignCacheFor(deps);
  const router = Router();

  router.get('/r/:slug', pages.rotator, async (req, res) => {
    const slug = req.params.slug;
    const campaign = SLUG_PATTERN.test(slug)
      ? await slugs.get(slug, () => findCampaignBySlug(slug))
      : null;
    if (!campaign) return sendPublicNotFound(res, req.path);
    const link = await pickInRotation(
      deps.redis,
      rotatorCounterKey(deps.keys, campaign.id),
      await campaignLinks(campaign.id),
      new Date(),
    );
    if (!link) return sendPublicNotFound(res, req.path);
    res.setHeader('Cache-Control', 'private, no-store');
    if (!isBareRedirect(link)) {
      // The visitor meets the link's password form, pages, rules or limit: the click is counted there.
      return res.redirect(302, shortUrlOf(link, await originsOf([link]), publicUrl));
    }
    if (req.method !== 'HEAD') deps.visits.record({ kind: 'link', id: link.id }, req);
    res.redirect(302, withParameters(link.url, linkParameters(link)));
  });

  router.get('/u/:username/list-:id', pages.list, async (req, res) => {
    const id = Number(req.params.id);
    const campaign = Number.isSafeInteger(id)
      ? await findPublicCampaign(req.params.username, id)
      : null;
    if (!campaign) return sendPublicNotFound(res, req.path);
    const links = await campaignLinks(campaign.id, LIST_PAGE_LIMIT);
    const list = presentPublicList(campaign, links, await originsOf(links), publicUrl);
    if (req.accepts(['html', 'json']) === 'json') {
      res.json({ error: 0, data: list });
      return;
    }
    const title = list.name || 'Links';
    const items = list.links
      .map(
        (l) =>
          `<li><a href="${escapeHtml(l.shorturl)}">${escapeHtml(l.title || l.shorturl)}</a></li>`,
      )
      .join('');
    sendPage(res, 200, title, `<h1>${escapeHtml(title)}</h1><ul>${items}</ul>`);
  });

  return router;
}
