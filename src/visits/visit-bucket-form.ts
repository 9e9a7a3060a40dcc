import { clickLabelsOf } from './visit-describe';
import { targetKey, type CapturedVisit, type ClickLabels, type VisitKind } from './visits.types';

/**
 * Which apply step wrote a bucket: an applier identity and its batch number. Every rollup
 * document remembers, per applier, the last batch counted into it, so counting a bucket again
 * (a replay after a crash) is refused document by document.
 */
export interface BatchId {
  applier: string;
  seq: number;
}

/** One stored click as readers see it, whichever form its bucket was stored in. */
export interface BucketVisit extends ClickLabels {
  entryId: string;
  at: Date;
  visitor: string;
}

/**
 * The stored shape of a bucket (see visit.model.ts), written with the driver. Buckets are stored
 * in columns: `labels` holds each distinct set of labels once, and `packed` the clicks (JSON of
 * three arrays parallel to `entryIds`: milliseconds after `from`, visitor hash, index into
 * `labels`). The embedded engine's cost of a write is per BSON value, and a click stored as a
 * subdocument of ten named fields was most of the drain's cost there. Buckets stored before
 * (`visits`, one subdocument per click) are read alike (`columnsOf`).
 */
export interface BucketDoc {
  _id: string;
  kind: VisitKind;
  targetId: number;
  /** The owner of the link or code, for the account rollup (absent on older buckets). */
  userId?: number;
  from: Date;
  to: Date;
  /** Absent on buckets stored before batches were numbered (those were counted at once). */
  batch: BatchId;
  /** The click ids: the unique `{targetId, entryIds}` index stores each click once. */
  entryIds: string[];
  labels?: ClickLabels[];
  packed?: string;
  /** The form before columns. */
  visits?: BucketVisit[];
}

/** A bucket's clicks, in `entryIds` order. */
export interface ClickColumns {
  at: number[];
  visitor: string[];
  /** Index into `labels`. */
  label: number[];
  labels: ClickLabels[];
}

const columnsMemo = new WeakMap<BucketDoc, ClickColumns>();

function labelsKey(l: ClickLabels): string {
  return `${l.country}\0${l.referrer}\0${l.browser}\0${l.os}\0${l.social}\0${l.bot}\0${l.variant ?? ''}`;
}

function columnsOfVisits(visits: readonly BucketVisit[]): ClickColumns {
  const columns: ClickColumns = { at: [], visitor: [], label: [], labels: [] };
  const index = new Map<string, number>();
  for (const v of visits) {
    const key = labelsKey(v);
    let i = index.get(key);
    if (i === undefined) {
      i = columns.labels.length;
      index.set(key, i);
      const labels: ClickLabels = {
        country: v.country,
        referrer: v.referrer,
        browser: v.browser,
        os: v.os,
        social: v.social ?? null,
        bot: v.bot,
      };
      if (v.variant) labels.variant = v.variant;
      columns.labels.push(labels);
    }
    columns.at.push(v.at.getTime());
    columns.visitor.push(v.visitor);
    columns.label.push(i);
  }
  return columns;
}

function columnsOfPacked(bucket: BucketDoc, packed: string): ClickColumns {
  const [offsets, visitor, label] = JSON.parse(packed) as [number[], string[], number[]];
  const labels = bucket.labels ?? [];
  const n = bucket.entryIds.length;
  if (offsets?.length !== n || visitor?.length !== n || label?.length !== n)
    throw new Error(`bucket ${bucket._id}: packed clicks do not match its ${n} click ids`);
  const from = bucket.from.getTime();
  return { at: offsets.map((ms) => from + ms), visitor, label, labels };
}

/** The clicks of a bucket as columns, in either stored form; computed once per bucket object. */
export function columnsOf(bucket: BucketDoc): ClickColumns {
  let columns = columnsMemo.get(bucket);
  if (!columns) {
    columns =
      bucket.packed !== undefined
        ? columnsOfPacked(bucket, bucket.packed)
        : columnsOfVisits(bucket.visits ?? []);
    columnsMemo.set(bucket, columns);
  }
  return columns;
}

/** How many clicks a bucket holds. */
export const clickCountOf = (bucket: BucketDoc): number => bucket.entryIds.length;

/** The clicks of a bucket one by one (exports, tests), in either stored form. */
export function visitsOf(bucket: BucketDoc): BucketVisit[] {
  const { at, visitor, label, labels } = columnsOf(bucket);
  return bucket.entryIds.map((entryId, i) => ({
    entryId,
    at: new Date(at[i] as number),
    visitor: visitor[i] as string,
    ...(labels[label[i] as number] as ClickLabels),
  }));
}

/** Gathers the clicks of one target into a bucket, each distinct set of labels stored once. */
export class BucketBuilder {
  private readonly entryIds: string[] = [];
  private readonly columns: ClickColumns = { at: [], visitor: [], label: [], labels: [] };
  private readonly index = new Map<ClickLabels, number>();
  /** The labels added last and their index: consecutive clicks mostly share them. */
  private last: { labels: ClickLabels; index: number } | undefined;

  constructor(
    private readonly kind: VisitKind,
    private readonly targetId: number,
  ) {}

  /** `labels` are compared by identity: pass the same object for the same labels. */
  add(entryId: string, at: number, visitor: string, labels: ClickLabels): void {
    let i = this.last?.labels === labels ? this.last.index : this.index.get(labels);
    if (i === undefined) {
      i = this.columns.labels.length;
      this.index.set(labels, i);
      this.columns.labels.push(labels);
    }
    if (this.last?.labels !== labels) this.last = { labels, index: i };
    this.entryIds.push(entryId);
    this.columns.at.push(at);
    this.columns.visitor.push(visitor);
    this.columns.label.push(i);
  }

  get size(): number {
    return this.entryIds.length;
  }

  build(batch: BatchId): BucketDoc {
    const { at, visitor, label, labels } = this.columns;
    let from = Infinity;
    let to = -Infinity;
    for (const ms of at) {
      if (ms < from) from = ms;
      if (ms > to) to = ms;
    }
    const bucket: BucketDoc = {
      _id: `${targetKey({ kind: this.kind, id: this.targetId })}:${this.entryIds[0]}`,
      kind: this.kind,
      targetId: this.targetId,
      from: new Date(from),
      to: new Date(to),
      batch,
      entryIds: this.entryIds,
      labels,
      packed: JSON.stringify([at.map((ms) => ms - from), visitor, label]),
    };
    columnsMemo.set(bucket, this.columns);
    return bucket;
  }
}

/** One bucket per target for a batch of clicks (each click's labels derived here). */
export function toBuckets(
  clicks: ReadonlyArray<{ entryId: string; visit: CapturedVisit }>,
  batch: BatchId,
): BucketDoc[] {
  const byTarget = new Map<string, BucketBuilder>();
  let last: { kind: VisitKind; id: number; builder: BucketBuilder } | undefined;
  for (const { entryId, visit } of clicks) {
    // A stream entry holds one turn's clicks of one partition, often of one link: most clicks
    // go to the bucket the one before went to.
    if (last?.id !== visit.targetId || last.kind !== visit.kind) {
      const key = targetKey({ kind: visit.kind, id: visit.targetId });
      let builder = byTarget.get(key);
      if (!builder) {
        builder = new BucketBuilder(visit.kind, visit.targetId);
        byTarget.set(key, builder);
      }
      last = { kind: visit.kind, id: visit.targetId, builder };
    }
    last.builder.add(entryId, visit.at, visit.visitor, clickLabelsOf(visit));
  }
  return [...byTarget.values()].map((b) => b.build(batch));
}

/** The bucket without some of its clicks (those stored elsewhere), re-keyed; null when none is left. */
export function withoutEntries(doc: BucketDoc, drop: ReadonlySet<string>): BucketDoc | null {
  if (!doc.entryIds.some((id) => drop.has(id))) return doc;
  const { at, visitor, label, labels } = columnsOf(doc);
  const builder = new BucketBuilder(doc.kind, doc.targetId);
  doc.entryIds.forEach((entryId, i) => {
    if (!drop.has(entryId))
      builder.add(
        entryId,
        at[i] as number,
        visitor[i] as string,
        labels[label[i] as number] as ClickLabels,
      );
  });
  if (builder.size === 0) return null;
  const rest = builder.build(doc.batch);
  if (doc.userId !== undefined) rest.userId = doc.userId;
  return rest;
}
