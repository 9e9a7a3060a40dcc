import { Router } from 'express';
import { currentUser } from '../auth/auth.middleware';
import type { AppDeps } from '../deps';
import { withinPlan } from '../plans/plan-limit.middleware';
import type { PageQuery } from '../shared/http/pagination';
import { createdResponse, sendCreated, sendList, sendMessage } from '../shared/http/responses';
import { deleteEndpoint, listEndpoint, updateEndpoint } from '../shared/http/common-endpoints';
import { endpoint } from '../shared/http/endpoint';
import { validatedQuery } from '../shared/http/validate';
import { domainVerifier, systemResolver } from './domain-check';
import { BrandedDomain } from './domain.model';
import { domainJson, presentDomain } from './domains.presenter';
import {
  domainCreateSchema,
  domainUpdateSchema,
  type DomainCreate,
  type DomainUpdate,
} from './domains.schemas';
import { domainCacheFor } from './domain-cache';
import { createDomain, deleteDomain, listDomains, updateDomain } from './domains.service';

const tag = 'Branded domains';

const api = {
  list: listEndpoint(tag, 'List your branded domains', 'domains', domainJson, 'domains'),
  add: endpoint({
    tag,
    scope: 'domains:write',
    summary: 'Add a branded domain',
    description: 'The domain must already point to this service (DNS A, AAAA or CNAME).',
    body: domainCreateSchema,
    example: { domain: 'https://go.example.com', redirectroot: 'https://example.com' },
    responses: { 200: createdResponse({}, 'The new domain') },
    errors: [403, 409],
  }),
  update: updateEndpoint(
    tag,
    "Change where a domain's root and unknown paths redirect",
    domainUpdateSchema,
    'domains',
  ),
  delete: deleteEndpoint(tag, 'Delete a branded domain', 'domains'),
};

export function domainsRouter(deps: AppDeps): Router {
  const hosts = domainCacheFor(deps);
  const router = Router();
  const verify = domainVerifier(deps.config, deps.domainResolver ?? systemResolver());

  router.get('/domains', api.list, async (req, res) => {
    const query = validatedQuery<PageQuery>(res);
    const { items, total } = await listDomains(currentUser(req).id, query);
    sendList(res, 'domains', items.map(presentDomain), total, query);
  });

  router.post(
    '/domain/add',
    api.add,
    withinPlan(deps, 'maxDomains', BrandedDomain),
    async (req, res) => {
      const input = req.body as DomainCreate;
      const domain = await createDomain(currentUser(req).id, input, verify, hosts);
      sendCreated(res, { id: domain.id });
    },
  );

  router.put('/domain/:id/update', api.update, async (req, res) => {
    const change = req.body as DomainUpdate;
    await updateDomain(currentUser(req).id, Number(req.params.id), change, hosts);
    sendMessage(res, 'Domain has been successfully updated.');
  });

  router.delete('/domain/:id/delete', api.delete, async (req, res) => {
    await deleteDomain(currentUser(req).id, Number(req.params.id), hosts);
    sendMessage(res, 'Domain has been successfully deleted.');
  });

  return router;
}
