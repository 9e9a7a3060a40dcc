import { Router } from 'express';
import { currentUser } from '../auth/auth.middleware';
import type { AppDeps } from '../deps';
import { idParams } from '../shared/http/id-params';
import type { PageQuery } from '../shared/http/pagination';
import {
  createdResponse,
  dataResponse,
  messageResponse,
  sendCreated,
  sendData,
  sendList,
  sendMessage,
} from '../shared/http/responses';
import { deleteEndpoint, listEndpoint } from '../shared/http/common-endpoints';
import { endpoint } from '../shared/http/endpoint';
import { validatedQuery } from '../shared/http/validate';
import {
  campaignJson,
  campaignWriteFields,
  presentCampaign,
  presentCampaignWrite,
} from './campaigns.presenter';
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
import { campaignCacheFor, rotatorCacheFor } from './campaign-cache';
import { rotatorCounterKey } from './rotation';

const tag = 'Campaigns';

const api = {
  list: listEndpoint(tag, 'List your campaigns', 'campaigns', campaignJson, 'campaigns'),
  add: endpoint({
    tag,
    scope: 'campaigns:write',
    summary: 'Create a campaign',
    body: campaignCreateSchema,
    example: { name: 'Spring sale', slug: 'spring', public: true },
    responses: { 200: createdResponse(campaignWriteFields, 'The new campaign') },
    errors: [409],
  }),
  assign: endpoint({
    tag,
    scope: 'campaigns:write',
    summary: 'Put a short link into a campaign',
    description: 'A link is in at most one campaign: assigning moves it.',
    params: assignParams,
    responses: { 200: messageResponse('Assigned') },
  }),
  update: endpoint({
    tag,
    scope: 'campaigns:write',
    summary: 'Change a campaign',
    params: idParams,
    body: campaignUpdateSchema,
    responses: { 200: dataResponse(campaignWriteFields, 'The campaign as it now is') },
    errors: [409],
  }),
  delete: deleteEndpoint(tag, 'Delete a campaign (its links stay)', 'campaigns'),
};

export function campaignsRouter(deps: AppDeps): Router {
  const { config, redis, keys } = deps;
  const { publicUrl } = config;
  const slugs = campaignCacheFor(deps);
  const rotators = rotatorCacheFor(deps);
  const router = Router();

  router.get('/campaigns', api.list, async (req, res) => {
    const query = validatedQuery<PageQuery>(res);
    const user = currentUser(req);
    const { items, total } = await listCampaigns(user.id, query);
    const campaigns = items.map((c) => presentCampaign(c, user.username, publicUrl));
    sendList(res, 'campaigns', campaigns, total, query);
  });

  router.post('/campaign/add', api.add, async (req, res) => {
    const user = currentUser(req);
    const campaign = await createCampaign(user.id, req.body as CampaignCreate, slugs);
    sendCreated(res, presentCampaignWrite(campaign, user.username, publicUrl));
  });

  router.post('/campaign/:campaignid/assign/:linkid', api.assign, async (req, res) => {
    const { campaignid, linkid } = req.params as unknown as AssignParams;
    await assignLink(currentUser(req).id, campaignid, linkid, rotators);
    sendMessage(res, 'Link has been successfully assigned to the campaign.');
  });

  router.put('/campaign/:id/update', api.update, async (req, res) => {
    const user = currentUser(req);
    const id = Number(req.params.id);
    const campaign = await updateCampaign(user.id, id, req.body as CampaignUpdate, slugs);
    sendData(res, presentCampaignWrite(campaign, user.username, publicUrl));
  });

  router.delete('/campaign/:id/delete', api.delete, async (req, res) => {
    const id = Number(req.params.id);
    await deleteCampaign(currentUser(req).id, id, slugs, rotators);
    await redis.del(rotatorCounterKey(keys, id));
    sendMessage(res, 'Campaign has been successfully deleted.');
  });

  return router;
}
