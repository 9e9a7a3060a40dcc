import { Router } from 'express';
import { currentUser } from '../auth/auth.middleware';
import type { AppDeps } from '../deps';
import { withinPlan } from '../plans/plan-limit.middleware';
import { idParams } from '../shared/http/id-params';
import { pageQuerySchema, type PageQuery } from '../shared/http/pagination';
import { sendCreated, sendData, sendList, sendMessage } from '../shared/http/responses';
import { validate, validatedQuery } from '../shared/http/validate';
import { QrCode } from './qr-code.model';
import { presentQr, presentQrDetails, qrLink } from './qr-codes.presenter';
import { qrCreateSchema, qrUpdateSchema, type QrCreate, type QrUpdate } from './qr-codes.schemas';
import { createQr, deleteQr, getQr, listQrs, qrServiceContext, updateQr } from './qr-codes.service';

export function qrCodesRouter(deps: AppDeps): Router {
  const { config } = deps;
  const ctx = qrServiceContext(deps);
  const router = Router();

  router.get('/qr', validate({ query: pageQuerySchema }), async (req, res) => {
    const query = validatedQuery<PageQuery>(res);
    const { items, total } = await listQrs(currentUser(req).id, query);
    const scans = await deps.visits.getClickCounts(
      'qr',
      items.map((qr) => qr.id),
    );
    const qrs = items.map((qr) => presentQr(qr, scans.get(qr.id) ?? 0, config.publicUrl));
    sendList(res, 'qrs', qrs, total, query);
  });

  router.get('/qr/:id', validate({ params: idParams }), async (req, res) => {
    const qr = await getQr(currentUser(req).id, Number(req.params.id));
    const data = await deps.visits.getStatistics({ kind: 'qr', id: qr.id });
    sendData(res, { details: presentQrDetails(qr, data.clicks, config.publicUrl), data });
  });

  router.post(
    '/qr/add',
    validate({ body: qrCreateSchema }),
    withinPlan(config.plans, 'maxQrCodes', QrCode),
    async (req, res) => {
      const qr = await createQr(currentUser(req).id, req.body as QrCreate, ctx);
      sendCreated(res, { id: qr.id, link: qrLink(config.publicUrl, qr.alias) });
    },
  );

  router.put(
    '/qr/:id/update',
    validate({ params: idParams, body: qrUpdateSchema }),
    async (req, res) => {
      await updateQr(currentUser(req).id, Number(req.params.id), req.body as QrUpdate, ctx);
      sendMessage(res, 'QR code has been successfully updated.');
    },
  );

  router.delete('/qr/:id/delete', validate({ params: idParams }), async (req, res) => {
    await deleteQr(currentUser(req).id, Number(req.params.id), ctx);
    sendMessage(res, 'QR code has been successfully deleted.');
  });

  return router;
}
