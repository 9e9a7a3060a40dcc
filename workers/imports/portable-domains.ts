import type { DomainVerifier } from '../../src/domains/domain-check';
import { BrandedDomain } from '../../src/domains/domain.model';
import { ownershipRecordName } from '../../src/domains/domain-ownership';
import { domainCreateSchema, type DomainCreate } from '../../src/domains/domains.schemas';
import { createDomain } from '../../src/domains/domains.service';
import { ImportedItem } from '../../src/imports/import.model';
import { withPlanSlot, type PlanLockDeps } from '../../src/plans/plan-lock';
import type { Plan } from '../../src/plans/plans.config';
import { planLimitReached, planRoom } from '../../src/plans/plans.service';
import type { Invalidator } from '../../src/shared/cache/shared-cache';
import { AppError } from '../../src/shared/errors/app-error';
import { itemValidator } from '../../src/shared/http/bulk';
import type { ReportSink } from './portable-records';
import type { RecordItem } from './sources/source';

const validDomain = itemValidator<DomainCreate>(domainCreateSchema);

/** What `POST /api/domain/add` claims a domain with, in the worker. */
export interface DomainImportContext {
  user: { id: number; status: string };
  origin: string;
  plans: readonly Plan[];
  locks: PlanLockDeps;
  verify: DomainVerifier;
  hosts: Invalidator;
  ownership: { domainCheck: 'dns' | 'off'; recheckMs: number };
  report: ReportSink;
}

/**
 * Branded domains of a linkqr export. A domain is a claim on a host, and the file is the
 * importer's own text: its `status`, `verifiedAt` and token prove nothing here. Each is claimed
 * as `POST /api/domain/add` claims one (the host checked, held against other accounts, within
 * `maxDomains`), with a token of its own: under DOMAIN_CHECK=dns it serves once its TXT record
 * holds that token, which the report names.
 */
export async function importDomains(items: RecordItem[], ctx: DomainImportContext) {
  const { user, origin, report } = ctx;
  for (const item of items) {
    const label = `domain ${item.sourceId}`;
    const kind = 'domain';
    if (await ImportedItem.exists({ userId: user.id, origin, kind, sourceId: item.sourceId })) {
      report.skipped += 1;
      continue;
    }
    const { domain, redirectroot, redirect404, appleAppSiteAssociation, assetLinks } = item.data;
    const input = validDomain({
      domain,
      redirectroot,
      redirect404,
      appleAppSiteAssociation,
      assetLinks,
    });
    if (input instanceof AppError) {
      report.failed += 1;
      report.note(label, input.message);
      continue;
    }
    let created;
    try {
      created = await withPlanSlot(ctx.locks, ctx.plans, user, 'maxDomains', async () => {
        const room = await planRoom(ctx.plans, user, 'maxDomains', (userId) =>
          BrandedDomain.countDocuments({ userId }),
        );
        if (room < 1) return planLimitReached(ctx.plans, user, 'maxDomains');
        return createDomain(user.id, input, ctx.verify, ctx.hosts, ctx.ownership);
      });
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      created = err;
    }
    if (created instanceof AppError) {
      // A host someone holds is the domains' "alias taken": skipped, as a taken alias is.
      const taken = created.status === 409;
      if (taken) report.skipped += 1;
      else report.failed += 1;
      report.note(label, taken ? `${created.message}: skipped` : created.message);
      continue;
    }
    await ImportedItem.create({
      userId: user.id,
      origin,
      kind,
      sourceId: item.sourceId,
      targetId: created.id,
    });
    report.imported += 1;
    if (created.status === 'pending')
      report.note(
        label,
        `imported as domain ${created.id}, pending: its links serve once the TXT record ${ownershipRecordName(created.host)} holds ${String(created.verifyToken)} (then POST /api/domain/${created.id}/verify)`,
      );
  }
}
