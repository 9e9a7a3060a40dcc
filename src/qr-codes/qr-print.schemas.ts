import Joi from 'joi';
import { record } from '../shared/http/responses';

export const printQuerySchema = Joi.object({
  distance: Joi.number().greater(0).max(200).required().description('scanning distance in metres'),
});

const mm = Joi.number().min(0);

export const printCheckJson = record({
  distance: Joi.number(),
  rule: Joi.string(),
  modules: Joi.number().integer().description('modules per side of the symbol'),
  moduleMm: mm,
  symbolMm: mm.description('the symbol alone'),
  width: mm.description('the whole drawing: quiet zone and frame included'),
  height: mm,
  contrast: Joi.number().description('lowest WCAG ratio of a dark colour to the background'),
  quietZone: record({ modules: Joi.number().integer(), mm }),
  errorCorrection: record({
    level: Joi.string().valid('L', 'M', 'Q', 'H'),
    logoCodewords: Joi.number().integer().description('codewords the logo wipes out, worst block'),
    correctable: Joi.number().integer().description('codewords a block corrects'),
    headroom: Joi.number().integer(),
  }),
  warnings: Joi.array().items(Joi.string()),
});
