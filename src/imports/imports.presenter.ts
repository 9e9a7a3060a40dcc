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
  started: dateTimeJson.allow(null),
  finished: dateTimeJson.allow(null),
});

export function presentImport(job: ImportRecord) {
  return {
    id: job.id,
    source: job.source,
    status: job.status,
    total: job.total,
    imported: job.imported,
    skipped: job.skipped,
    failed: job.failed,
    errors: (job.errors ?? []).map((e) => ({ item: e.item ?? '', message: e.message ?? '' })),
    started: job.started ? formatDateTime(job.started) : null,
    finished: job.finished ? formatDateTime(job.finished) : null,
  };
}
