import { Router } from 'express';
import type { AppDeps } from '../deps';
import { originsOf } from '../links/link-domains';
import { shortUrlOf } from '../links/short-url';
import { escapeHtml, sendPage } from '../shared/http/pages';
import { sendPublicNotFound } from '../shared/http/public-context';
import { campaignCacheFor } from './campaign-cache';
import { presentPublicList } from './campaigns.presenter';
import { SLUG_PATTERN } from './campaigns.schemas';
import {
  campaignLinks,
  findCampaignBySlug,
  findPublicCampaign,
  LIST_PAGE_LIMIT,
} from './campaigns.service';
import { pickInRotation, rotatorCounterKey } from './rotation';

/** Visitor side of campaigns: the rotator `/r/{slug}` and the public list page. */
export function campaignsPublicRouter(deps: AppDeps): Router {
  const { publicUrl } = deps.config;
  const slugs = campaignCacheFor(deps);
  const router = Router();

  router.get('/r/:slug', async (req, res) => {
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
    if (link.passwordHash) {
      // The visitor meets the link's password form; its click is counted once they pass it.
      return res.redirect(302, shortUrlOf(link, await originsOf([link]), publicUrl));
    }
    if (req.method !== 'HEAD') deps.visits.record({ kind: 'link', id: link.id }, req);
    res.redirect(302, link.url);
  });

  router.get('/u/:username/list-:id', async (req, res) => {
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
