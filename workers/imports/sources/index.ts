import type { ImportSource } from '../../../src/imports/import.model';
import { csvSource } from './csv';
import type { SourceAdapter, SourceContext } from './source';

const adapters: Partial<Record<ImportSource, (ctx: SourceContext) => SourceAdapter>> = {
  csv: csvSource,
};

export function adapterFor(source: ImportSource | string, ctx: SourceContext): SourceAdapter {
  const make = adapters[source as ImportSource];
  if (!make) throw new Error(`source ${source} is not supported`);
  return make(ctx);
}
