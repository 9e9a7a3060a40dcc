import { Router } from 'express';
import { currentUser } from '../auth/auth.middleware';
import type { AppDeps } from '../deps';
import { withinPlan } from '../plans/plan-limit.middleware';
import { idParams } from '../shared/http/id-params';
import type { PageQuery } from '../shared/http/pagination';
import {
  createdResponse,
  dataResponse,
  sendCreated,
  sendData,
  sendList,
  sendMessage,
  urlJson,
} from '../shared/http/responses';
import { statisticsJson } from '../visits/visits.types';
import { deleteEndpoint, listEndpoint, updateEndpoint } from '../shared/http/common-endpoints';
import { endpoint } from '../shared/http/endpoint';
import { validatedQuery } from '../shared/http/validate';
import { QrCode } from './qr-code.model';
import { presentQr, presentQrDetails, qrDetailsJson, qrJson, qrLink } from './qr-codes.presenter';
import { qrCreateSchema, qrUpdateSchema, type QrCreate, type QrUpdate } from './qr-codes.schemas';
import {
  createQr,
  deleteQr,
  getQr,
  listQrs,
  printCheckOf,
  qrServiceContext,
  updateQr,
} from './qr-codes.service';
import { printCheckJson, printQuerySchema } from './qr-print.schemas';

const tag = 'QR codes';

const api = {
  list: listEndpoint(tag, 'List your QR codes', 'qrs', qrJson, 'qr'),
  get: endpoint({
    tag,
    scope: 'qr:read',
    summary: 'One QR code with its render state and scan statistics',
    params: idParams,
    responses: {
      200: dataResponse({ details: qrDetailsJson, data: statisticsJson }, 'The QR code'),
    },
  }),
  add: endpoint({
    tag,
    scope: 'qr:write',
    summary: 'Create a QR code',
    description:
      'The image is rendered in the background: asked for meanwhile, `link` waits for the render (up to `QR_IMAGE_WAIT_MS`), then answers 202 until it is ready. A `link` code is dynamic: it encodes `/s/{alias}`, which redirects to `data` and counts the scan.',
    body: qrCreateSchema,
    example: { type: 'link', data: 'https://example.com', foreground: 'rgb(0,0,0)', name: 'Flyer' },
    responses: { 200: createdResponse({ link: urlJson }, 'The new QR code; `link` is its image') },
    errors: [403],
  }),
  print: endpoint({
    tag,
    scope: 'qr:read',
    summary: 'Print check: the smallest print that scans from a distance, and what to watch',
    description:
      'The module and total size in mm for `distance` metres (the 10:1 rule, modules at least 0.4 mm), the lowest contrast of any dark colour against the background, the quiet zone, the error-correction codewords left per block after the logo, and warnings.',
    params: idParams,
    query: printQuerySchema,
    responses: { 200: dataResponse({ data: printCheckJson }, 'The print check') },
  }),
  update: updateEndpoint(tag, 'Change a QR code (it is rendered again)', qrUpdateSchema, 'qr'),
  delete: deleteEndpoint(tag, 'Delete a QR code and its images', 'qr'),
};

export function qrCodesRouter(deps: AppDeps): Router {
  const { config } = deps;
  const ctx = qrServiceContext(deps);
  const router = Router();

  router.get('/qr', api.list, async (req, res) => {
    const query = validatedQuery<PageQuery>(res);
    const { items, total } = await listQrs(currentUser(req).id, query);
    const scans = await deps.visits.getClickCounts(
      'qr',
      items.map((qr) => qr.id),
    );
    const qrs = items.map((qr) => presentQr(qr, scans.get(qr.id) ?? 0, config.publicUrl));
    sendList(res, 'qrs', qrs, total, query);
  });

  router.get('/qr/:id', api.get, async (req, res) => {
    const qr = await getQr(currentUser(req).id, Number(req.params.id));
    const data = await deps.visits.getStatistics({ kind: 'qr', id: qr.id });
    sendData(res, { details: presentQrDetails(qr, data.clicks, config.publicUrl), data });
  });

  router.post('/qr/add', api.add, withinPlan(deps, 'maxQrCodes', QrCode), async (req, res) => {
    const qr = await createQr(currentUser(req).id, req.body as QrCreate, ctx);
    sendCreated(res, { id: qr.id, link: qrLink(config.publicUrl, qr.alias) });
  });

  router.get('/qr/:id/print', api.print, async (req, res) => {
    const qr = await getQr(currentUser(req).id, Number(req.params.id));
    const { distance } = validatedQuery<{ distance: number }>(res);
    sendData(res, { data: printCheckOf(qr, distance) });
  });

  router.put('/qr/:id/update', api.update, async (req, res) => {
    await updateQr(currentUser(req).id, Number(req.params.id), req.body as QrUpdate, ctx);
    sendMessage(res, 'QR code has been successfully updated.');
  });

  router.delete('/qr/:id/delete', api.delete, async (req, res) => {
    await deleteQr(currentUser(req).id, Number(req.params.id), ctx);
    sendMessage(res, 'QR code has been successfully deleted.');
  });

  return router;
}
