import { Readable } from 'node:stream';
import { BrandedDomain } from '../../src/domains/domain.model';
import { inChunks } from '../../src/exports/export-stream';
import {
  ImportedItem,
  ImportFileChunk,
  ImportJob,
  MAX_REPORTED_ERRORS,
  type ImportRecord,
} from '../../src/imports/import.model';
import { unsealKey, type ImportJobData } from '../../src/imports/imports.jobs';
import { insertLinks, type LinkDraft } from '../../src/links/links-bulk.service';
import { longUrl } from '../../src/links/links.schemas';
import type { LinkInvalidator } from '../../src/links/links.service';
import { DEFAULT_DOMAIN_ID, Link } from '../../src/links/link.model';
import type { Plan } from '../../src/plans/plans.config';
import type { QrCreateContext } from '../../src/qr-codes/qr-codes.service';
import { withPlanSlot, type PlanLockDeps } from '../../src/plans/plan-lock';
import { planLimitReached, planRoom } from '../../src/plans/plans.service';
import { AppError } from '../../src/shared/errors/app-error';
import type { Logger } from '../../src/shared/infra/logger';
import { User } from '../../src/users/user.model';
import type { WebhookServiceContext } from '../../src/webhooks/webhooks.service';
import type { SourceHttpOptions } from './source-http';
import { checkedLinkFields } from './link-fields';
import { importBioPages } from './portable-bio';
import { importDomains, type DomainImportContext } from './portable-domains';
import { importQrCodes } from './portable-qr';
import { importRecords, resolveLinkRefs } from './portable-records';
import type { Invalidator } from '../../src/shared/cache/shared-cache';
import { importWebhooks, type CreatedWebhook } from './portable-webhooks';
import { adapterFor } from './sources';
import type { LinkItem, RecordItem, SourceContext, SourceItem } from './sources/source';

export interface ImportDeps {
  cache: LinkInvalidator;
  plans: readonly Plan[];
  logger: Logger;
  secretKey: Buffer | undefined;
  http: SourceHttpOptions;
  /** QR codes of a linkqr export are created as the API creates them, renders queued. */
  qr: QrCreateContext;
  /** The per-user create slots the API's plan-limited routes take too (plan-lock.ts). */
  locks: PlanLockDeps;
  /** Webhooks of a linkqr export are created as the API creates them, each with a new secret. */
  webhooks: WebhookServiceContext;
  /** Domains of a linkqr export are claimed as the API claims them, each with its own token. */
  domains: Pick<DomainImportContext, 'verify' | 'hosts' | 'ownership'>;
  /** Imported campaigns drop a cached "no such slug" in every API process, as campaign/add does. */
  campaignSlugs: Invalidator;
}

const BATCH = 100;

/** The running report of one import, written back after every batch. */
class Report {
  total = 0;
  imported = 0;
  skipped = 0;
  failed = 0;
  errors: Array<{ item: string; message: string }> = [];
  webhooks: CreatedWebhook[] = [];
  knownTotal: number | undefined;

  note(item: string, message: string) {
    if (this.errors.length < MAX_REPORTED_ERRORS) this.errors.push({ item, message });
  }

  save(importId: number, extra: Partial<ImportRecord> = {}) {
    const total = Math.max(this.knownTotal ?? 0, this.total);
    const { imported, skipped, failed, errors, webhooks } = this;
    return ImportJob.updateOne(
      { id: importId },
      { $set: { total, imported, skipped, failed, errors, webhooks, ...extra } },
    );
  }
}

/** The uploaded file of an import, chunk by chunk from MongoDB. */
export function uploadedFile(importId: number): Readable {
  async function* chunks() {
    const cursor = ImportFileChunk.find({ importId })
      .sort({ n: 1 })
      .lean()
      .cursor({ batchSize: 4 });
    for await (const chunk of cursor) yield Buffer.from(chunk.data.buffer);
  }
  return Readable.from(chunks(), { objectMode: false });
}

function draftOf(item: LinkItem, domains: Map<string, number>, rename: boolean): LinkDraft {
  const domainId =
    item.domainId ?? ((item.domain && domains.get(item.domain.toLowerCase())) || DEFAULT_DOMAIN_ID);
  return {
    domainId,
    alias: item.alias ? { custom: item.alias, renameIfTaken: rename } : {},
    fields: {
      ...item.fields,
      url: item.url,
      title: (item.title ?? '').slice(0, 255),
      description: (item.description ?? '').slice(0, 1000),
      expiry: item.expiry ?? null,
      ...(item.createdAt ? { createdAt: item.createdAt } : {}),
    },
  };
}

/** The caller's branded domains by host, so a source's link keeps its domain where it can. */
async function domainsByHost(userId: number): Promise<Map<string, number>> {
  const domains = await BrandedDomain.find({ userId }).lean();
  return new Map(domains.map((d) => [new URL(d.domain).host.toLowerCase(), d.id]));
}

/**
 * One batch: items already brought in by an earlier run are skipped, bad URLs fail, the rest are
 * inserted together (an alias taken is skipped and reported, or renamed). Answers false once the
 * plan's limit stopped the import.
 */
async function importBatch(
  job: ImportRecord,
  origin: string,
  batch: SourceItem[],
  ctx: {
    deps: ImportDeps;
    report: Report;
    domains: Map<string, number>;
    user: { id: number; status: string };
  },
): Promise<boolean> {
  const { deps, report } = ctx;
  report.total += batch.length;
  const links: LinkItem[] = [];
  const records = batch.flatMap((item) => (item.kind === 'record' ? [item] : []));
  // QR codes may point at links and assignments name either: they go after the links of the
  // same batch (QR codes first), the other records before.
  const isAssignment = (r: RecordItem) => r.type === 'channelItem';
  const isQr = (r: RecordItem) => r.type === 'qr';
  const isWebhook = (r: RecordItem) => r.type === 'webhook';
  const isDomain = (r: RecordItem) => r.type === 'domain';
  const isBio = (r: RecordItem) => r.type === 'bio';
  await importDomains(records.filter(isDomain), {
    ...deps.domains,
    user: ctx.user,
    origin,
    plans: deps.plans,
    locks: deps.locks,
    report,
  });
  const plainRecords = records.filter(
    (r) => !isAssignment(r) && !isQr(r) && !isWebhook(r) && !isDomain(r) && !isBio(r),
  );
  await importRecords(job.userId, origin, plainRecords, report);
  await deps.campaignSlugs.invalidate(
    plainRecords.flatMap((r) =>
      r.type === 'campaign' && typeof r.data.slug === 'string' ? [r.data.slug] : [],
    ),
  );
  await importBioPages(records.filter(isBio), {
    userId: job.userId,
    origin,
    rename: job.onConflict === 'rename',
    report,
  });
  for (const item of batch) {
    if (item.kind === 'record') continue;
    if (item.kind === 'bad') {
      report.failed += 1;
      report.note(item.item, item.message);
    } else if (longUrl.required().validate(item.url).error) {
      report.failed += 1;
      report.note(item.sourceId, `url ${item.url} is not an http or https URL`);
    } else links.push(item);
  }
  const seen = await ImportedItem.find({
    userId: job.userId,
    origin,
    kind: 'link',
    sourceId: { $in: links.map((l) => l.sourceId) },
  }).lean();
  const done = new Set(seen.map((s) => s.sourceId));
  const unseen = links.filter((l) => !done.has(l.sourceId));
  await resolveLinkRefs(job.userId, origin, unseen);
  report.skipped += links.length - unseen.length;
  // Fields a source sets beyond the URL are stored only as url/add would store them.
  const fresh: LinkItem[] = [];
  for (const item of unseen) {
    const fields = item.fields && (await checkedLinkFields(job.userId, item.fields));
    if (fields instanceof AppError) {
      report.failed += 1;
      report.note(item.sourceId, fields.message);
      continue;
    }
    fresh.push(fields ? { ...item, fields } : item);
  }
  // Counted and stored holding the user's slot, so API creates running meanwhile cannot pass
  // the same count (the API's plan-limited routes take the same slot).
  const { allowed, made } = await withPlanSlot(
    deps.locks,
    deps.plans,
    ctx.user,
    'maxLinks',
    async () => {
      const room = fresh.length
        ? await planRoom(deps.plans, ctx.user, 'maxLinks', (userId) =>
            Link.countDocuments({ userId }),
          )
        : 0;
      const allowed = fresh.slice(0, room);
      const drafts = allowed.map((l) => draftOf(l, ctx.domains, job.onConflict === 'rename'));
      return { allowed, made: await insertLinks(job.userId, drafts, deps.cache) };
    },
  );
  const rows: Array<{
    userId: number;
    origin: string;
    kind: string;
    sourceId: string;
    targetId: number;
  }> = [];
  made.forEach((outcome, i) => {
    const item = allowed[i] as LinkItem;
    if (outcome instanceof AppError) {
      report.skipped += 1;
      report.note(item.sourceId, `${outcome.message}: skipped`);
      return;
    }
    report.imported += 1;
    rows.push({
      userId: job.userId,
      origin,
      kind: 'link',
      sourceId: item.sourceId,
      targetId: outcome.link.id,
    });
    if (outcome.renamedFrom)
      report.note(
        item.sourceId,
        `alias ${outcome.renamedFrom} was taken: imported as ${outcome.link.alias}`,
      );
    for (const note of item.notes ?? []) report.note(item.sourceId, note);
  });
  if (rows.length) await ImportedItem.insertMany(rows);
  const qrsWithinPlan = await importQrCodes(records.filter(isQr), {
    user: ctx.user,
    origin,
    plans: deps.plans,
    locks: deps.locks,
    qr: deps.qr,
    rename: job.onConflict === 'rename',
    report,
  });
  await importRecords(job.userId, origin, records.filter(isAssignment), report);
  await importWebhooks(records.filter(isWebhook), {
    user: ctx.user,
    origin,
    plans: deps.plans,
    locks: deps.locks,
    webhooks: deps.webhooks,
    report,
  });
  if (allowed.length < fresh.length) {
    report.failed += fresh.length - allowed.length;
    report.note(
      '',
      `${planLimitReached(deps.plans, ctx.user, 'maxLinks').message}: import stopped`,
    );
    return false;
  }
  return qrsWithinPlan;
}

/** Runs one import job to its end, writing its report as it goes. Never logs or stores the key. */
export async function runImport(data: ImportJobData, deps: ImportDeps): Promise<void> {
  const job = await ImportJob.findOne({ id: data.importId }).lean<ImportRecord>();
  if (!job || job.status === 'done' || job.status === 'failed') return;
  const report = new Report();
  await ImportJob.updateOne({ id: job.id }, { $set: { status: 'running', started: new Date() } });
  try {
    const user = await User.findOne({ id: job.userId }).lean();
    if (!user) throw new Error('the user of this import is gone');
    const key =
      data.sealedKey && deps.secretKey ? unsealKey(data.sealedKey, deps.secretKey) : undefined;
    const ctx: SourceContext = {
      baseUrl: job.url ?? null,
      key,
      http: deps.http,
      openFile: () => uploadedFile(job.id),
      reportTotal: (total) => (report.knownTotal = total),
    };
    const adapter = adapterFor(job.source, ctx);
    const state = { deps, report, domains: await domainsByHost(job.userId), user };
    let complete = true;
    for await (const batch of inChunks(adapter.items(), BATCH)) {
      complete = await importBatch(job, adapter.origin, batch, state);
      await report.save(job.id);
      if (!complete) break;
    }
    await report.save(job.id, { status: complete ? 'done' : 'failed', finished: new Date() });
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    report.note('', message);
    deps.logger.warn({ importId: job.id, source: job.source, err: message }, 'import failed');
    await report.save(job.id, { status: 'failed', finished: new Date() });
  } finally {
    await ImportFileChunk.deleteMany({ importId: job.id });
  }
}
