import Joi from 'joi';
import type { ExportFormat } from './export-stream';

export interface VisitsExportQuery {
  format: ExportFormat;
  from?: string;
  to?: string;
}

export const visitsExportQuerySchema = Joi.object<VisitsExportQuery>({
  format: Joi.string().valid('csv', 'jsonl').default('csv'),
  from: Joi.string().max(40),
  to: Joi.string().max(40),
});

export const linksExportQuerySchema = Joi.object({
  format: Joi.string().valid('csv', 'jsonl').default('csv'),
});
