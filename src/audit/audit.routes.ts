import { Router } from 'express';
import { currentUser } from '../auth/auth.middleware';
import { endpoint } from '../shared/http/endpoint';
import { listResponse, sendList } from '../shared/http/responses';
import { validatedQuery } from '../shared/http/validate';
import { auditEntryJson, presentAuditEntry } from './audit.presenter';
import { auditQuerySchema, type AuditQuery } from './audit.schemas';
import { listAuditEntries } from './audit.service';

const api = {
  list: endpoint({
    tag: 'Audit log',
    scope: 'account:read',
    summary: 'Every write to your account, newest first',
    description:
      'Who (user, key or dashboard session), what (route, record type and id, the fields set, secrets never shown), when and from which address. Kept AUDIT_RETENTION_DAYS days.',
    query: auditQuerySchema,
    responses: { 200: listResponse('entries', auditEntryJson, 'A page of entries') },
    // `after` naming no entry of the caller's.
    errors: [422],
  }),
};

export function auditRouter(): Router {
  const router = Router();
  router.get('/audit', api.list, async (req, res) => {
    const query = validatedQuery<AuditQuery>(res);
    const { items, total } = await listAuditEntries(currentUser(req).id, query);
    sendList(res, 'entries', items.map(presentAuditEntry), total, {
      page: query.page,
      limit: query.limit,
    });
  });
  return router;
}
