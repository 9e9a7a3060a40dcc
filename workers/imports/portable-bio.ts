import { Bio } from '../../src/bio/bio.model';
import { bioCreateSchema, type BioCreate } from '../../src/bio/bio.schemas';
import { createBioPage } from '../../src/bio/bio.service';
import { ImportedItem } from '../../src/imports/import.model';
import { AppError } from '../../src/shared/errors/app-error';
import { itemValidator } from '../../src/shared/http/bulk';
import type { ReportSink } from './portable-records';
import type { RecordItem } from './sources/source';

const validBio = itemValidator<BioCreate>(bioCreateSchema);

/**
 * Bio pages of a linkqr export, created as `POST /api/bio/add` creates them (name, alias and
 * links checked), keeping their date. Their alias under `/b/` is kept; a taken one is skipped, or
 * with `onConflict: rename` replaced by a fresh one the report names, as a link's would be.
 */
export async function importBioPages(
  items: RecordItem[],
  ctx: { userId: number; origin: string; rename: boolean; report: ReportSink },
) {
  const { userId, origin, report } = ctx;
  for (const item of items) {
    const label = `bio ${item.sourceId}`;
    if (await ImportedItem.exists({ userId, origin, kind: 'bio', sourceId: item.sourceId })) {
      report.skipped += 1;
      continue;
    }
    const { name, alias, links } = item.data;
    const input = validBio({
      name,
      alias,
      // Only what a bio link is: a title and a URL.
      links: Array.isArray(links)
        ? links.map((l: { title?: unknown; url?: unknown }) => ({ title: l?.title, url: l?.url }))
        : links,
    });
    if (input instanceof AppError) {
      report.failed += 1;
      report.note(label, input.message);
      continue;
    }
    let page;
    try {
      page = await createBioPage(userId, input);
    } catch (err) {
      if (!(err instanceof AppError) || err.status !== 409) throw err;
      if (!ctx.rename) {
        report.skipped += 1;
        report.note(label, `${err.message}: skipped`);
        continue;
      }
      page = await createBioPage(userId, { ...input, alias: undefined });
      report.note(label, `alias ${String(input.alias)} was taken: imported as ${page.alias}`);
    }
    const createdAt = item.data.createdAt;
    if (createdAt instanceof Date && !Number.isNaN(createdAt.getTime()))
      await Bio.updateOne({ id: page.id }, { $set: { createdAt } });
    await ImportedItem.create({
      userId,
      origin,
      kind: 'bio',
      sourceId: item.sourceId,
      targetId: page.id,
    });
    report.imported += 1;
  }
}
