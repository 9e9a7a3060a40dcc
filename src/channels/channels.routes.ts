import { Router } from 'express';
import { currentUser } from '../auth/auth.middleware';
import type { AppDeps } from '../deps';
import { idParams } from '../shared/http/id-params';
import { pageQuerySchema, type PageQuery } from '../shared/http/pagination';
import { sendCreated, sendList, sendMessage } from '../shared/http/responses';
import { validate, validatedQuery } from '../shared/http/validate';
import { resolveChannelItems } from './channel-items';
import { presentChannel, presentChannelItem } from './channels.presenter';
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

export function channelsRouter({ config }: AppDeps): Router {
  const router = Router();

  router.get('/channels', validate({ query: pageQuerySchema }), async (req, res) => {
    const query = validatedQuery<PageQuery>(res);
    const { items, total } = await listChannels(currentUser(req).id, query);
    sendList(res, 'channels', items.map(presentChannel), total, query);
  });

  router.get(
    '/channel/:id',
    validate({ params: idParams, query: pageQuerySchema }),
    async (req, res) => {
      const query = validatedQuery<PageQuery>(res);
      const id = Number(req.params.id);
      const { memberships, total } = await listChannelMemberships(currentUser(req).id, id, query);
      const items = await resolveChannelItems(memberships, config.publicUrl);
      sendList(res, 'items', items.map(presentChannelItem), total, query);
    },
  );

  router.post('/channel/add', validate({ body: channelCreateSchema }), async (req, res) => {
    const channel = await createChannel(currentUser(req).id, req.body as ChannelCreate);
    sendCreated(res, presentChannel(channel));
  });

  router.post(
    '/channel/:channelid/assign/:type/:itemid',
    validate({ params: assignParams }),
    async (req, res) => {
      const { channelid, type, itemid } = req.params as unknown as AssignParams;
      await assignToChannel(currentUser(req).id, channelid, type, itemid);
      sendMessage(res, 'Item has been successfully assigned to the channel.');
    },
  );

  router.put(
    '/channel/:id/update',
    validate({ params: idParams, body: channelUpdateSchema }),
    async (req, res) => {
      await updateChannel(currentUser(req).id, Number(req.params.id), req.body as ChannelUpdate);
      sendMessage(res, 'Channel has been successfully updated.');
    },
  );

  router.delete('/channel/:id/delete', validate({ params: idParams }), async (req, res) => {
    await deleteChannel(currentUser(req).id, Number(req.params.id));
    sendMessage(res, 'Channel has been successfully deleted.');
  });

  return router;
}
