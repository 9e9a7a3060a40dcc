import { Router } from 'express';
import { currentUser } from '../auth/auth.middleware';
import type { AppDeps } from '../deps';
import { Link } from '../links/link.model';
import { getLink } from '../links/links.service';
import { QrCode } from '../qr-codes/qr-code.model';
import { getQr } from '../qr-codes/qr-codes.service';
import { idParams } from '../shared/http/id-params';
import { sendData } from '../shared/http/responses';
import { validate } from '../shared/http/validate';
import { targetKey } from '../shared/visits/visits.types';
import { presentSeries } from './stats.presenter';
import { parseStatsQuery } from './stats.schemas';
import { getSeries } from './stats.service';
import { bucketRange } from './time-buckets';

/** Every link and QR code of a user, as rollup targets. */
async function targetsOf(userId: number): Promise<string[]> {
  const [links, qrs] = await Promise.all([
    Link.find({ userId }).lean(),
    QrCode.find({ userId }).lean(),
  ]);
  return [
    ...links.map((l) => targetKey({ kind: 'link', id: l.id })),
    ...qrs.map((q) => targetKey({ kind: 'qr', id: q.id })),
  ];
}

/** Clicks over time of one link, one QR code, or everything the caller owns. */
export function statsRouter(deps: AppDeps): Router {
  const router = Router();

  const series = async (targets: string[], rawQuery: unknown) => {
    const query = parseStatsQuery(rawQuery);
    const range = bucketRange(query);
    const result = await getSeries(targets, range, query.by, deps.redis, deps.keys);
    return { data: presentSeries(result, query.by) };
  };

  router.get('/url/:id/stats', validate({ params: idParams }), async (req, res) => {
    const { link } = await getLink(currentUser(req).id, Number(req.params.id));
    sendData(res, await series([targetKey({ kind: 'link', id: link.id })], req.query));
  });

  router.get('/qr/:id/stats', validate({ params: idParams }), async (req, res) => {
    const qr = await getQr(currentUser(req).id, Number(req.params.id));
    sendData(res, await series([targetKey({ kind: 'qr', id: qr.id })], req.query));
  });

  router.get('/stats', async (req, res) => {
    sendData(res, await series(await targetsOf(currentUser(req).id), req.query));
  });

  return router;
}
