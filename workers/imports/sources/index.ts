import type { ImportSource } from '../../../src/imports/import.model';
import { bitlySource } from './bitly';
import { csvSource } from './csv';
import { gempixelSource } from './gempixel';
import { kuttSource } from './kutt';
import { linkqrSource } from './linkqr';
import { shlinkSource } from './shlink';
import type { SourceAdapter, SourceContext } from './source';

const adapters: Partial<Record<ImportSource, (ctx: SourceContext) => SourceAdapter>> = {
  csv: csvSource,
  gempixel: gempixelSource,
  shlink: shlinkSource,
  kutt: kuttSource,
  bitly: bitlySource,
  linkqr: linkqrSource,
};

export function adapterFor(source: ImportSource | string, ctx: SourceContext): SourceAdapter {
  const make = adapters[source as ImportSource];
  if (!make) throw new Error(`source ${source} is not supported`);
  return make(ctx);
}
