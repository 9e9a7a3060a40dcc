import { Router } from 'express';
import { currentUser } from '../auth/auth.middleware';
import type { AppDeps } from '../deps';
import { AppError } from '../shared/errors/app-error';
import { itemValidator } from '../shared/http/bulk';
import { endpoint } from '../shared/http/endpoint';
import { idParams } from '../shared/http/id-params';
import { keysetPageQuerySchema, type PageQuery } from '../shared/http/pagination';
import {
  createdResponse,
  dataResponse,
  listResponse,
  sendCreated,
  sendData,
  sendList,
} from '../shared/http/responses';
import { validatedQuery } from '../shared/http/validate';
import { importRefusal } from './import-scopes';
import { readImportUpload } from './import-upload';
import { importJson, presentImport } from './imports.presenter';
import { importCreateSchema, type ImportCreate } from './imports.schemas';
import {
  discardUpload,
  listImports,
  revealImport,
  startImport,
  type ImportContext,
} from './imports.service';

const tag = 'Imports';
const checkImport = itemValidator<ImportCreate>(importCreateSchema);

const api = {
  create: endpoint({
    tag,
    scope: 'imports:write',
    summary: 'Import links from another service or a file',
    description:
      'JSON `{source, url, key, onConflict}`, or a `multipart/form-data` upload with the same text fields and `file` (sources `csv` and `linkqr`). Answers at once; the worker runs the import (`GET /api/import/{id}` reports it). The key is used for that job only and never stored. Beyond `imports:write`, a key needs the write scope of every kind of record the source may bring (403 `insufficient_scope` naming the first missing): `links:write` for `csv`, `shlink`, `kutt` and `bitly`; for `gempixel` also `qr`, `pixels`, `splash`, `overlays`, `campaigns` and `channels`; for `linkqr` also `domains` and `webhooks`.',
    example: { source: 'shlink', url: 'https://s.example.com', key: 'shlink-api-key' },
    responses: { 200: createdResponse({}, 'The import, queued') },
    errors: [400, 413, 415, 422],
  }),
  get: endpoint({
    tag,
    scope: 'imports:read',
    summary: 'One of your imports and its report',
    description:
      "The first answer for the finished import carries the new signing secret of each webhook it created (`webhooks[].secret`), shown this once: the source's secrets are never exported.",
    params: idParams,
    responses: { 200: dataResponse({ data: importJson }, 'The import') },
  }),
  list: endpoint({
    tag,
    scope: 'imports:read',
    summary: 'Your imports, newest first',
    query: keysetPageQuerySchema,
    responses: { 200: listResponse('imports', importJson, 'A page of imports') },
  }),
};

/** Import jobs: started here, run by the worker (workers/imports/), reported here. */
export function importsRouter(deps: AppDeps, queue: ImportContext['queue']): Router {
  const { config } = deps;
  const ctx: ImportContext = {
    queue,
    secretKey: config.webhookSecretKey,
    policy: { allowPrivate: config.importAllowPrivate },
  };
  const router = Router();

  router.post('/import', api.create, async (req, res) => {
    const userId = currentUser(req).id;
    if (req.is('multipart/form-data')) {
      const upload = await readImportUpload(req);
      try {
        const input = checkImport({ source: 'csv', ...upload.fields });
        if (input instanceof AppError) throw input;
        const refused = importRefusal(req, input.source);
        if (refused) throw refused;
        if (!upload.hasFile && input.url === undefined)
          throw new AppError(422, 'validation_failed', 'file is required', { field: 'file' });
        const job = await startImport(
          userId,
          input,
          ctx,
          upload.hasFile ? { importId: upload.importId } : undefined,
        );
        return sendCreated(res, { id: job.id });
      } catch (err) {
        await discardUpload(upload.importId);
        throw err;
      }
    }
    const input = checkImport(req.body ?? {});
    if (input instanceof AppError) throw input;
    const refused = importRefusal(req, input.source);
    if (refused) throw refused;
    const job = await startImport(userId, input, ctx);
    sendCreated(res, { id: job.id });
  });

  router.get('/import/:id', api.get, async (req, res) => {
    const { job, secrets } = await revealImport(
      currentUser(req).id,
      Number(req.params.id),
      config.webhookSecretKey,
    );
    sendData(res, { data: presentImport(job, secrets) });
  });

  router.get('/imports', api.list, async (req, res) => {
    const query = validatedQuery<PageQuery>(res);
    const { items, total } = await listImports(currentUser(req).id, query);
    sendList(
      res,
      'imports',
      items.map((job) => presentImport(job)),
      total,
      query,
    );
  });

  return router;
}
