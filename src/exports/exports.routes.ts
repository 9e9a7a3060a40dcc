import { Router, type Response } from 'express';
import { currentUser } from '../auth/auth.middleware';
import type { AppDeps } from '../deps';
import { getLink } from '../links/links.service';
import { getQr } from '../qr-codes/qr-codes.service';
import { validation } from '../shared/errors/app-error';
import { endpoint } from '../shared/http/endpoint';
import { idParams } from '../shared/http/id-params';
import { validatedQuery } from '../shared/http/validate';
import { formatDate } from '../shared/format/dates';
import type { VisitTarget } from '../visits/visits.types';
import { parseTime } from '../stats/time-buckets';
import { sendExport, sendJsonLines, type ExportFormat } from './export-stream';
import { EXPORT_VERSION, portableExport } from './portable-export';
import {
  linksExportQuerySchema,
  visitsExportQuerySchema,
  type VisitsExportQuery,
} from './exports.schemas';
import { LINK_COLUMNS, linkRows, VISIT_COLUMNS, visitRows } from './exports.service';

const tag = 'Exports';
const download = {
  description: 'A download: CSV with a header row (`format=csv`) or one JSON object a line',
  media: ['text/csv', 'application/x-ndjson'],
  headers: ['Content-Disposition'],
};

const visitsEndpoint = (summary: string) =>
  endpoint({
    tag,
    scope: 'stats:read',
    summary,
    description:
      'Streamed oldest first; `from`/`to` (dates or ISO 8601 date-times, UTC) narrow it.',
    params: idParams,
    query: visitsExportQuerySchema,
    responses: { 200: download },
    errors: [422],
  });

/** Each route's validation and OpenAPI declaration. */
const api = {
  links: endpoint({
    tag,
    scope: 'links:read',
    summary: 'Download all your short links',
    query: linksExportQuerySchema,
    responses: { 200: download },
  }),
  everything: endpoint({
    tag,
    scope: 'imports:read',
    summary: 'Download everything you own, to move it to another linkqr',
    description:
      'JSON lines: a header line (`format`, `version`, `source`, `exported`, `user`), then one `{type, data}` line per record: domains, pixels, splash pages, overlays, campaigns, channels, bio pages, links, QR codes, channel assignments and webhooks (without secrets). `POST /api/import` with `source: linkqr` reads it. See docs/export-format.md.',
    responses: {
      200: {
        description: 'JSON lines',
        media: ['application/x-ndjson'],
        headers: ['Content-Disposition', 'Linkqr-Export-Version'],
      },
    },
  }),
  linkVisits: visitsEndpoint("Download a short link's raw visits"),
  qrVisits: visitsEndpoint("Download a QR code's raw scans"),
};

/** Downloads: the caller's links, and the raw visits of one link or QR code. */
export function exportsRouter(deps: AppDeps): Router {
  const router = Router();

  router.get('/urls/export', api.links, async (req, res) => {
    const { format } = validatedQuery<{ format: ExportFormat }>(res);
    const filename = `linkqr-links-${formatDate(new Date())}`;
    const rows = linkRows(currentUser(req).id, deps.config.publicUrl);
    await sendExport(res, { format, filename, columns: LINK_COLUMNS }, rows);
  });

  router.get('/export', api.everything, async (req, res) => {
    const user = currentUser(req);
    res.setHeader('Linkqr-Export-Version', String(EXPORT_VERSION));
    const filename = `linkqr-export-${formatDate(new Date())}`;
    await sendJsonLines(res, filename, portableExport(user, deps.config.publicUrl));
  });

  const visits = (target: VisitTarget, query: VisitsExportQuery, res: Response) => {
    const from = query.from ? parseTime('from', query.from, 'UTC').toJSDate() : undefined;
    const to = query.to ? parseTime('to', query.to, 'UTC').toJSDate() : undefined;
    if (from && to && from >= to) throw validation('from must be before to', 'from');
    const filename = `linkqr-${target.kind}-${target.id}-visits`;
    return sendExport(
      res,
      { format: query.format, filename, columns: VISIT_COLUMNS },
      visitRows(target, { from, to }),
    );
  };

  router.get('/url/:id/visits', api.linkVisits, async (req, res) => {
    const { link } = await getLink(currentUser(req).id, Number(req.params.id));
    await visits({ kind: 'link', id: link.id }, validatedQuery<VisitsExportQuery>(res), res);
  });

  router.get('/qr/:id/visits', api.qrVisits, async (req, res) => {
    const qr = await getQr(currentUser(req).id, Number(req.params.id));
    await visits({ kind: 'qr', id: qr.id }, validatedQuery<VisitsExportQuery>(res), res);
  });

  return router;
}
