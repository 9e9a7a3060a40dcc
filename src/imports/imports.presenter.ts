import Joi from 'joi';
import { formatDateTime } from '../shared/format/dates';
import { dateTimeJson, idJson, record } from '../shared/http/responses';
import { IMPORT_SOURCES, IMPORT_STATUSES, type ImportRecord } from './import.model';

const count = Joi.number().integer().min(0);

export const importJson = record({
  id: idJson,
  source: Joi.string().valid(...IMPORT_SOURCES),
  status: Joi.string().valid(...IMPORT_STATUSES),
  total: count,
  imported: count,
  skipped: count,
  failed: count,
  errors: Joi.array().items(record({ item: Joi.string().allow(''), message: Joi.string() })),
  webhooks: Joi.array()
    .items(
      record({
        item: Joi.string().description('the webhook in the source'),
        id: idJson.description('the webhook it became here'),
        url: Joi.string(),
        secret: Joi.string()
          .allow(null)
          .description(
            'its new signing secret, shown in the first answer for the finished import only (null after that)',
          ),
      }),
    )
    .description('webhooks the import created, each with a new signing secret'),
  started: dateTimeJson.allow(null),
  finished: dateTimeJson.allow(null),
});

/**
 * An import and its report. `secrets` holds the new webhooks' signing secrets, by webhook id, in
 * the one answer that shows them (see revealImport).
 */
export function presentImport(job: ImportRecord, secrets?: ReadonlyMap<number, string>) {
  return {
    id: job.id,
    source: job.source,
    status: job.status,
    total: job.total,
    imported: job.imported,
    skipped: job.skipped,
    failed: job.failed,
    errors: (job.errors ?? []).map((e) => ({ item: e.item ?? '', message: e.message ?? '' })),
    webhooks: (job.webhooks ?? []).map((w) => ({
      item: w.item ?? '',
      id: w.id ?? 0,
      url: w.url ?? '',
      secret: (w.id !== undefined && w.id !== null && secrets?.get(w.id)) || null,
    })),
    started: job.started ? formatDateTime(job.started) : null,
    finished: job.finished ? formatDateTime(job.finished) : null,
  };
}
