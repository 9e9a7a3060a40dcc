import { Router } from 'express';
import { currentUser } from '../auth/auth.middleware';
import type { AppDeps } from '../deps';
import { idParams } from '../shared/http/id-params';
import { pageQuerySchema, type PageQuery } from '../shared/http/pagination';
import {
  createdResponse,
  listResponse,
  messageResponse,
  sendCreated,
  sendList,
  sendMessage,
} from '../shared/http/responses';
import { deleteEndpoint, listEndpoint, updateEndpoint } from '../shared/http/common-endpoints';
import { endpoint } from '../shared/http/endpoint';
import { validatedQuery } from '../shared/http/validate';
import { resolveChannelItems } from './channel-items';
import {
  channelFields,
  channelItemJson,
  channelJson,
  presentChannel,
  presentChannelItem,
} from './channels.presenter';
import {
  assignParams,
  channelCreateSchema,
  channelUpdateSchema,
  type AssignParams,
  type ChannelCreate,
  type ChannelUpdate,
} from './channels.schemas';
import {
  assignToChannel,
  createChannel,
  deleteChannel,
  listChannelMemberships,
  listChannels,
  updateChannel,
} from './channels.service';

const tag = 'Channels';

const api = {
  list: listEndpoint(tag, 'List your channels', 'channels', channelJson, 'channels'),
  items: endpoint({
    tag,
    scope: 'channels:read',
    summary: 'List the items of a channel',
    params: idParams,
    query: pageQuerySchema,
    responses: {
      200: listResponse('items', channelItemJson, 'A page of links, bio pages and QR codes'),
    },
  }),
  add: endpoint({
    tag,
    scope: 'channels:write',
    summary: 'Create a channel',
    body: channelCreateSchema,
    example: { name: 'Newsletter', description: 'Links we mail', color: '#1A2B3C', starred: true },
    responses: { 200: createdResponse(channelFields, 'The new channel') },
  }),
  assign: endpoint({
    tag,
    scope: 'channels:write',
    summary: 'Put a link, bio page or QR code into a channel',
    params: assignParams,
    responses: { 200: messageResponse('Assigned') },
    errors: [422],
  }),
  update: updateEndpoint(tag, 'Change a channel', channelUpdateSchema, 'channels'),
  delete: deleteEndpoint(
    tag,
    'Delete a channel (its items are unassigned, not deleted)',
    'channels',
  ),
};

export function channelsRouter({ config }: AppDeps): Router {
  const router = Router();

  router.get('/channels', api.list, async (req, res) => {
    const query = validatedQuery<PageQuery>(res);
    const { items, total } = await listChannels(currentUser(req).id, query);
    sendList(res, 'channels', items.map(presentChannel), total, query);
  });

  router.get('/channel/:id', api.items, async (req, res) => {
    const query = validatedQuery<PageQuery>(res);
    const id = Number(req.params.id);
    const { memberships, total } = await listChannelMemberships(currentUser(req).id, id, query);
    const items = await resolveChannelItems(memberships, config.publicUrl);
    sendList(res, 'items', items.map(presentChannelItem), total, query);
  });

  router.post('/channel/add', api.add, async (req, res) => {
    const channel = await createChannel(currentUser(req).id, req.body as ChannelCreate);
    sendCreated(res, presentChannel(channel));
  });

  router.post('/channel/:channelid/assign/:type/:itemid', api.assign, async (req, res) => {
    const { channelid, type, itemid } = req.params as unknown as AssignParams;
    await assignToChannel(currentUser(req).id, channelid, type, itemid);
    sendMessage(res, 'Item has been successfully assigned to the channel.');
  });

  router.put('/channel/:id/update', api.update, async (req, res) => {
    await updateChannel(currentUser(req).id, Number(req.params.id), req.body as ChannelUpdate);
    sendMessage(res, 'Channel has been successfully updated.');
  });

  router.delete('/channel/:id/delete', api.delete, async (req, res) => {
    await deleteChannel(currentUser(req).id, Number(req.params.id));
    sendMessage(res, 'Channel has been successfully deleted.');
  });

  return router;
}
