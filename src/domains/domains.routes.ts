import { Router } from 'express';
import { currentUser } from '../auth/auth.middleware';
import type { AppDeps } from '../deps';
import { withinPlan } from '../plans/plan-limit.middleware';
import type { PageQuery } from '../shared/http/pagination';
import Joi from 'joi';
import {
  createdResponse,
  dataResponse,
  sendCreated,
  sendData,
  sendList,
  sendMessage,
} from '../shared/http/responses';
import { idParams } from '../shared/http/id-params';
import { presentVerification } from './domain-ownership';
import { verifyDomainOwnership } from './domain-verification.service';
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
    description:
      'The domain must already point to this service (DNS A, AAAA or CNAME). With the DNS check on, the new domain is `pending` and serves nothing until its ownership is verified: publish the TXT record its `verification.record` names (GET /api/domains), then call POST /api/domain/{id}/verify.',
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
  verify: endpoint({
    tag,
    scope: 'domains:write',
    summary: "Verify a domain's ownership now (its TXT record)",
    description:
      "Looks up the TXT record `_linkqr.<host>`; when it holds the domain's token, a pending or suspended domain starts serving. A 422 names the record to create. The worker checks every domain again periodically and suspends one whose record is gone.",
    params: idParams,
    responses: {
      200: dataResponse(
        { message: Joi.string(), verification: domainJson.extract('verification') },
        'Verified',
      ),
    },
    errors: [404, 422],
  }),
};

export function domainsRouter(deps: AppDeps): Router {
  const hosts = domainCacheFor(deps);
  const router = Router();
  const resolver = deps.domainResolver ?? systemResolver();
  const verify = domainVerifier(deps.config, resolver);
  const ownership = {
    resolver,
    domainCheck: deps.config.domainCheck,
    recheckMs: deps.config.domainRecheckMs,
    hosts,
    events: deps.webhooks,
  };

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
      const domain = await createDomain(currentUser(req).id, input, verify, hosts, ownership);
      sendCreated(res, { id: domain.id });
    },
  );

  router.put('/domain/:id/update', api.update, async (req, res) => {
    const change = req.body as DomainUpdate;
    await updateDomain(currentUser(req).id, Number(req.params.id), change, hosts);
    sendMessage(res, 'Domain has been successfully updated.');
  });

  router.post('/domain/:id/verify', api.verify, async (req, res) => {
    const domain = await verifyDomainOwnership(
      currentUser(req).id,
      Number(req.params.id),
      ownership,
    );
    sendData(res, {
      message: 'Domain ownership verified: its links are served.',
      verification: presentVerification(domain),
    });
  });

  router.delete('/domain/:id/delete', api.delete, async (req, res) => {
    await deleteDomain(currentUser(req).id, Number(req.params.id), hosts);
    sendMessage(res, 'Domain has been successfully deleted.');
  });

  return router;
}
