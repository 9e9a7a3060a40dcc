import { Router } from 'express';
import { currentUser } from '../auth/auth.middleware';
import type { AppDeps } from '../deps';
import { withinPlan } from '../plans/plan-limit.middleware';
import { idParams } from '../shared/http/id-params';
import { pageQuerySchema, type PageQuery } from '../shared/http/pagination';
import { sendCreated, sendList, sendMessage } from '../shared/http/responses';
import { validate, validatedQuery } from '../shared/http/validate';
import { domainVerifier, systemResolver } from './domain-check';
import { BrandedDomain } from './domain.model';
import { presentDomain } from './domains.presenter';
import {
  domainCreateSchema,
  domainUpdateSchema,
  type DomainCreate,
  type DomainUpdate,
} from './domains.schemas';
import { createDomain, deleteDomain, listDomains, updateDomain } from './domains.service';

export function domainsRouter(deps: AppDeps): Router {
  const router = Router();
  const verify = domainVerifier(deps.config, deps.domainResolver ?? systemResolver());

  router.get('/domains', validate({ query: pageQuerySchema }), async (req, res) => {
    const query = validatedQuery<PageQuery>(res);
    const { items, total } = await listDomains(currentUser(req).id, query);
    sendList(res, 'domains', items.map(presentDomain), total, query);
  });

  router.post(
    '/domain/add',
    validate({ body: domainCreateSchema }),
    withinPlan(deps.config.plans, 'maxDomains', BrandedDomain),
    async (req, res) => {
      const domain = await createDomain(currentUser(req).id, req.body as DomainCreate, verify);
      sendCreated(res, { id: domain.id });
    },
  );

  router.put(
    '/domain/:id/update',
    validate({ params: idParams, body: domainUpdateSchema }),
    async (req, res) => {
      await updateDomain(currentUser(req).id, Number(req.params.id), req.body as DomainUpdate);
      sendMessage(res, 'Domain has been successfully updated.');
    },
  );

  router.delete('/domain/:id/delete', validate({ params: idParams }), async (req, res) => {
    await deleteDomain(currentUser(req).id, Number(req.params.id));
    sendMessage(res, 'Domain has been successfully deleted.');
  });

  return router;
}
