import { Router } from 'express';
import { currentUser } from '../auth/auth.middleware';
import type { AppDeps } from '../deps';
import { idParams } from '../shared/http/id-params';
import { pageQuerySchema, type PageQuery } from '../shared/http/pagination';
import { sendCreated, sendData, sendList, sendMessage } from '../shared/http/responses';
import { validate, validatedQuery } from '../shared/http/validate';
import { presentCampaign, presentCampaignWrite } from './campaigns.presenter';
import {
  assignParams,
  campaignCreateSchema,
  campaignUpdateSchema,
  type AssignParams,
  type CampaignCreate,
  type CampaignUpdate,
} from './campaigns.schemas';
import {
  assignLink,
  createCampaign,
  deleteCampaign,
  listCampaigns,
  updateCampaign,
} from './campaigns.service';
import { campaignCacheFor } from './campaign-cache';
import { rotatorCounterKey } from './rotation';

export function campaignsRouter(deps: AppDeps): Router {
  const { config, redis, keys } = deps;
  const { publicUrl } = config;
  const slugs = campaignCacheFor(deps);
  const router = Router();

  router.get('/campaigns', validate({ query: pageQuerySchema }), async (req, res) => {
    const query = validatedQuery<PageQuery>(res);
    const user = currentUser(req);
    const { items, total } = await listCampaigns(user.id, query);
    const campaigns = items.map((c) => presentCampaign(c, user.username, publicUrl));
    sendList(res, 'campaigns', campaigns, total, query);
  });

  router.post('/campaign/add', validate({ body: campaignCreateSchema }), async (req, res) => {
    const user = currentUser(req);
    const campaign = await createCampaign(user.id, req.body as CampaignCreate, slugs);
    sendCreated(res, presentCampaignWrite(campaign, user.username, publicUrl));
  });

  router.post(
    '/campaign/:campaignid/assign/:linkid',
    validate({ params: assignParams }),
    async (req, res) => {
      const { campaignid, linkid } = req.params as unknown as AssignParams;
      await assignLink(currentUser(req).id, campaignid, linkid);
      sendMessage(res, 'Link has been successfully assigned to the campaign.');
    },
  );

  router.put(
    '/campaign/:id/update',
    validate({ params: idParams, body: campaignUpdateSchema }),
    async (req, res) => {
      const user = currentUser(req);
      const id = Number(req.params.id);
      const campaign = await updateCampaign(user.id, id, req.body as CampaignUpdate, slugs);
      sendData(res, presentCampaignWrite(campaign, user.username, publicUrl));
    },
  );

  router.delete('/campaign/:id/delete', validate({ params: idParams }), async (req, res) => {
    const id = Number(req.params.id);
    await deleteCampaign(currentUser(req).id, id, slugs);
    await redis.del(rotatorCounterKey(keys, id));
    sendMessage(res, 'Campaign has been successfully deleted.');
  });

  return router;
}
