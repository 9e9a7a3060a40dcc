import { Router } from 'express';
import Joi from 'joi';
import { currentUser } from '../auth/auth.middleware';
import type { AppDeps } from '../deps';
import { formatDateTime } from '../shared/format/dates';
import { deleteEndpoint, updateEndpoint } from '../shared/http/common-endpoints';
import { endpoint } from '../shared/http/endpoint';
import {
  createdResponse,
  dataResponse,
  dateTimeJson,
  idJson,
  record,
  sendCreated,
  sendData,
  sendMessage,
} from '../shared/http/responses';
import { membershipCacheFor } from './acting-account';
import { ROLES, type Role } from './membership.model';
import {
  memberAddSchema,
  memberUpdateSchema,
  type MemberAdd,
  type MemberUpdate,
} from './team.schemas';
import { addMember, removeMember, teamOf, updateMember } from './team.service';

const tag = 'Team';
const role = Joi.string().valid(...ROLES);

interface Row {
  id: number;
  role: Role;
  created: Date;
  username: string | null;
}

const present = (userId: number) => (m: Row) => ({
  id: m.id,
  userid: userId,
  username: m.username,
  role: m.role,
  created: formatDateTime(m.created),
});

const memberJson = record({
  id: idJson,
  userid: idJson,
  username: Joi.string().allow(null),
  role,
  created: dateTimeJson,
});

const api = {
  list: endpoint({
    tag,
    scope: 'account:read',
    summary: "Your account's members, and the accounts you are a member of",
    description:
      '`accounts` lists the accounts you may act in with `Linkqr-Account: <userid>` (their `userid` is the owner).',
    responses: {
      200: dataResponse(
        {
          data: record({
            members: Joi.array().items(memberJson),
            accounts: Joi.array().items(memberJson),
          }),
        },
        'The team',
      ),
    },
  }),
  add: endpoint({
    tag,
    scope: 'account:write',
    summary: 'Add an existing user to your account with a role',
    description:
      '`viewer` reads; `editor` also writes links, QR codes, campaigns and channels; `admin` everything but the team, the account and its keys.',
    body: memberAddSchema,
    example: { username: 'colleague', role: 'editor' },
    responses: { 200: createdResponse({}, 'The new membership') },
    errors: [409],
  }),
  update: updateEndpoint(tag, "Change a member's role", memberUpdateSchema, 'account'),
  delete: deleteEndpoint(tag, 'Remove a member: their access ends at once', 'account'),
};

export function teamRouter(deps: AppDeps): Router {
  const memberships = membershipCacheFor(deps);
  const router = Router();

  router.get('/team', api.list, async (req, res) => {
    const { members, accounts } = await teamOf(currentUser(req).id);
    sendData(res, {
      data: {
        members: members.map((m) => present(m.memberId)(m)),
        accounts: accounts.map((m) => present(m.accountId)(m)),
      },
    });
  });

  router.post('/team/add', api.add, async (req, res) => {
    sendCreated(res, { id: await addMember(currentUser(req).id, req.body as MemberAdd) });
  });

  router.put('/team/:id/update', api.update, async (req, res) => {
    const { role: next } = req.body as MemberUpdate;
    await updateMember(currentUser(req).id, Number(req.params.id), next, memberships);
    sendMessage(res, 'Member has been successfully updated.');
  });

  router.delete('/team/:id/delete', api.delete, async (req, res) => {
    await removeMember(currentUser(req).id, Number(req.params.id), memberships);
    sendMessage(res, 'Member has been removed.');
  });

  return router;
}
