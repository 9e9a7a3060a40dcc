import { ImportedItem } from '../../src/imports/import.model';
import { originsOf } from '../../src/links/link-domains';
import { Link } from '../../src/links/link.model';
import { shortUrlOf } from '../../src/links/short-url';
import type { Plan } from '../../src/plans/plans.config';
import { withPlanSlot, type PlanLockDeps } from '../../src/plans/plan-lock';
import { planLimitReached, planRoom } from '../../src/plans/plans.service';
import { QrCode } from '../../src/qr-codes/qr-code.model';
import { qrCreateSchema, type QrCreate } from '../../src/qr-codes/qr-codes.schemas';
import { createQr, type QrCreateContext } from '../../src/qr-codes/qr-codes.service';
import { AppError } from '../../src/shared/errors/app-error';
import { itemValidator } from '../../src/shared/http/bulk';
import { targetsOf, type ReportSink } from './portable-records';
import type { RecordItem } from './sources/source';

/** What `POST /api/qr/add` takes of a code; the rest of the record is set here or left behind. */
const QR_FIELDS = [
  'type',
  'data',
  'background',
  'foreground',
  'logo',
  'name',
  'size',
  'format',
  'style',
] as const;

const validQr = itemValidator<QrCreate>(qrCreateSchema);

export interface QrImportContext {
  user: { id: number; status: string };
  origin: string;
  plans: readonly Plan[];
  locks: PlanLockDeps;
  qr: QrCreateContext;
  rename: boolean;
  report: ReportSink;
}

/** The short URL here of the link the source's link `sourceId` became, if it did. */
async function importedShortUrl(ctx: QrImportContext, sourceId: string) {
  const [target] = (await targetsOf(ctx.user.id, ctx.origin, 'link', [sourceId])).values();
  const link = target === undefined ? null : await Link.findOne({ id: target }).lean();
  return link ? shortUrlOf(link, await originsOf([link]), ctx.qr.publicUrl) : undefined;
}

/** The body `POST /api/qr/add` would be sent for this record, its link pointed here. */
async function bodyOf(item: RecordItem, ctx: QrImportContext): Promise<Record<string, unknown>> {
  const body: Record<string, unknown> = {};
  for (const field of QR_FIELDS) if (item.data[field] !== undefined) body[field] = item.data[field];
  if (item.linkRef === undefined) return body;
  const url = await importedShortUrl(ctx, item.linkRef);
  if (url) body.data = url;
  else
    ctx.report.note(
      `qr ${item.sourceId}`,
      `link ${item.linkRef} was not imported: the code still points at ${String(body.data)}`,
    );
  return body;
}

/**
 * QR codes of a linkqr export, after the links of their batch: each is validated and created as
 * `POST /api/qr/add` creates one (its render queued), keeping its design, name, date and alias.
 * A taken alias is skipped or renamed as the import says. Answers false once the plan's limit
 * stopped the import.
 */
export async function importQrCodes(items: RecordItem[], ctx: QrImportContext): Promise<boolean> {
  const { user, origin, report } = ctx;
  for (const [i, item] of items.entries()) {
    const label = `qr ${item.sourceId}`;
    if (
      await ImportedItem.exists({ userId: user.id, origin, kind: 'qr', sourceId: item.sourceId })
    ) {
      report.skipped += 1;
      continue;
    }
    const input = validQr(await bodyOf(item, ctx));
    if (input instanceof AppError) {
      report.failed += 1;
      report.note(label, input.message);
      continue;
    }
    const alias = typeof item.data.alias === 'string' ? item.data.alias : undefined;
    const createdAt = item.data.createdAt instanceof Date ? item.data.createdAt : undefined;
    // Counted and created holding the user's slot, as `POST /api/qr/add` does: an API create
    // running meanwhile cannot pass the same count.
    let created;
    try {
      created = await withPlanSlot(ctx.locks, ctx.plans, user, 'maxQrCodes', async () => {
        const room = await planRoom(ctx.plans, user, 'maxQrCodes', (userId) =>
          QrCode.countDocuments({ userId }),
        );
        if (room < 1) return undefined;
        return createQr(user.id, input, ctx.qr, { alias, renameIfTaken: ctx.rename, createdAt });
      });
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      if (err.status === 409) report.skipped += 1;
      else report.failed += 1;
      report.note(label, err.status === 409 ? `${err.message}: skipped` : err.message);
      continue;
    }
    if (created === undefined) {
      report.failed += items.length - i;
      report.note('', `${planLimitReached(ctx.plans, user, 'maxQrCodes').message}: import stopped`);
      return false;
    }
    await ImportedItem.create({
      userId: user.id,
      origin,
      kind: 'qr',
      sourceId: item.sourceId,
      targetId: created.id,
    });
    report.imported += 1;
    if (alias !== undefined && created.alias !== alias)
      report.note(label, `alias ${alias} was taken: imported as ${created.alias}`);
  }
  return true;
}
