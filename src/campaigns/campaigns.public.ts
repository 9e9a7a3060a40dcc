import { Router } from 'express';
import Joi from 'joi';
import type { AppDeps } from '../deps';
import { originsOf } from '../links/link-domains';
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
import {
  campaignCacheFor,
  rotatorCacheFor,
  rotatorCacheKey,
  type RotatorMember,
} from './campaign-cache';
import { linkCacheFor, linkCacheKey, type LinkTarget } from '../links/link-cache';
import { loadLinkTarget, storedClicksOf } from '../visitor/redirect';
import { presentPublicList, publicListJson } from './campaigns.presenter';
import { SLUG_PATTERN } from './campaigns.schemas';
import {
  campaignLinks,
  findCampaignBySlug,
  findPublicCampaign,
  LIST_PAGE_LIMIT,
  rotatorMembers,
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
  const rotators = rotatorCacheFor(deps);
  const links = linkCacheFor(deps);
  const storedClicks = storedClicksOf(deps.visits);
  const router = Router();

  router.get('/r/:slug', pages.rotator, async (req, res) => {
    const slug = req.params.slug;
    const campaign = SLUG_PATTERN.test(slug)
      ? await slugs.get(slug, () => findCampaignBySlug(slug))
      : null;
    if (!campaign) return sendPublicNotFound(res, req.path);
    const members =
      (await rotators.get(rotatorCacheKey(campaign.id), () => rotatorMembers(campaign.id))) ?? [];
    const now = Date.now();
    const live: Array<{ member: RotatorMember; target: LinkTarget }> = [];
    for (const member of members) {
      const key = linkCacheKey(member.domainId, member.alias);
      const target = await links.get(key, () =>
        loadLinkTarget(member.domainId, member.alias, storedClicks),
      );
      if (target?.id === member.id && (target.expiresAt === null || target.expiresAt > now)) {
        live.push({ member, target });
      }
    }
    const picked = await pickInRotation(
      deps.redis,
      rotatorCounterKey(deps.keys, campaign.id),
      live,
    );
    if (!picked) return sendPublicNotFound(res, req.path);
    const { member, target } = picked;
    res.setHeader('Cache-Control', 'private, no-store');
    if (!target.direct || target.rules || target.limit) {
      // The visitor meets the link's password form, pages, rules or limit: the click is counted there.
      return res.redirect(302, shortUrlOf(member, await originsOf([member]), publicUrl));
    }
    if (req.method !== 'HEAD') deps.visits.record({ kind: 'link', id: member.id }, req);
    res.redirect(302, target.url);
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
