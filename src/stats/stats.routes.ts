import { Router } from 'express';
import { currentUser } from '../auth/auth.middleware';
import type { AppDeps } from '../deps';
import { getLink } from '../links/links.service';
import { getQr } from '../qr-codes/qr-codes.service';
import type { RequestHandler } from 'express';
import { endpoint, type EndpointDoc } from '../shared/http/endpoint';
import { idParams } from '../shared/http/id-params';
import { dataResponse, sendData } from '../shared/http/responses';
import { validatedQuery } from '../shared/http/validate';
import { targetKey } from '../visits/visits.types';
import { accountTarget } from './account-rollup';
import { presentSeries, seriesJson } from './stats.presenter';
import { parseStatsQuery, statsQuerySchema, type StatsQuery } from './stats.schemas';
import { getSeries } from './stats.service';
import { bucketRange } from './time-buckets';

/**
 * A bad series query is a 422 naming the parameter (see `parseStatsQuery`): it runs ahead of the
 * endpoint's own check, which then only sees queries it accepts.
 */
const statsQuery: RequestHandler = (req, res, next) => {
  res.locals.query = parseStatsQuery(req.query);
  next();
};

const seriesEndpoint = (summary: string, params?: EndpointDoc['params']) =>
  endpoint({
    tag: 'Statistics',
    scope: 'stats:read',
    summary,
    description:
      'Clicks and unique clicks per hour, day, ISO week or month of a time zone (`tz`), every bucket of the range present; with `by`, the top values of that dimension.',
    params,
    query: statsQuerySchema,
    responses: { 200: dataResponse({ data: seriesJson }, 'The series') },
    errors: [422],
  });

const api = {
  link: seriesEndpoint('Clicks over time of one short link', idParams),
  qr: seriesEndpoint('Scans over time of one QR code', idParams),
  all: seriesEndpoint('Clicks over time of all your links and QR codes'),
};

/** Clicks over time of one link, one QR code, or everything the caller owns. */
export function statsRouter(deps: AppDeps): Router {
  const router = Router();

  const series = async (targets: string[], query: StatsQuery) => {
    const range = bucketRange(query);
    const result = await getSeries(targets, range, query.by, deps.redis, deps.keys);
    return { data: presentSeries(result, query.by) };
  };

  router.get('/url/:id/stats', statsQuery, api.link, async (req, res) => {
    const { link } = await getLink(currentUser(req).id, Number(req.params.id));
    sendData(
      res,
      await series([targetKey({ kind: 'link', id: link.id })], validatedQuery<StatsQuery>(res)),
    );
  });

  router.get('/qr/:id/stats', statsQuery, api.qr, async (req, res) => {
    const qr = await getQr(currentUser(req).id, Number(req.params.id));
    sendData(
      res,
      await series([targetKey({ kind: 'qr', id: qr.id })], validatedQuery<StatsQuery>(res)),
    );
  });

  router.get('/stats', statsQuery, api.all, async (req, res) => {
    // The account rollup (account-rollup.ts): one target whatever the number of links.
    sendData(
      res,
      await series([accountTarget(currentUser(req).id)], validatedQuery<StatsQuery>(res)),
    );
  });

  return router;
}
