import { QrCode, type QrCodeRecord } from '../../src/qr-codes/qr-code.model';
import {
  imageDocuments,
  saveImages,
  type ImageDocument,
  type StoredFormat,
} from '../../src/qr-codes/qr-images';
import { QrImage } from '../../src/qr-codes/qr-image.model';
import { isOnlyDuplicateKeys } from '../../src/shared/db/duplicate-key';
import { groupCommit } from '../../src/shared/db/group-commit';

/** A proven render, to be stored and its version marked ready. */
export interface FinishedRender {
  qrId: number;
  renderVersion: number;
  images: Partial<Record<StoredFormat, Buffer>>;
}

export interface StoredRender {
  stored: ImageDocument[];
  /** This render turned its version from `pending` to `ready` (no other run of it did). */
  marked: boolean;
}

const keyOf = (r: FinishedRender) => `${r.qrId}:${r.renderVersion}`;

/**
 * The images of several renders in one insert. On a duplicate key (a retried or duplicated job
 * whose images are already stored) the embedded engine refuses the whole insert, MongoDB only the
 * duplicates: each render's images are then written on their own, where a duplicate means done.
 */
async function insertImages(renders: FinishedRender[], docs: ImageDocument[][]): Promise<void> {
  try {
    await QrImage.collection.insertMany(docs.flat(), { ordered: false });
  } catch (err) {
    if (!isOnlyDuplicateKeys(err)) throw err;
    if (renders.length === 1) return;
    for (const r of renders) await saveImages(r.qrId, r.renderVersion, r.images);
  }
}

/**
 * Marks the renders' versions ready in one update, and answers which of them this update marked.
 * All matched: every one. Fewer (a version updated, deleted or marked by another run meanwhile):
 * the documents are read back, and a version counts as ours only where it carries this update's
 * `renderedAt`, unique per update in this process, so no version is announced twice.
 */
async function markReady(renders: FinishedRender[]): Promise<boolean[]> {
  const firsts = renders.map((r, i) => renders.findIndex((o) => keyOf(o) === keyOf(r)) === i);
  const distinct = renders.filter((_, i) => firsts[i]);
  const renderedAt = uniqueNow();
  const marked = await QrCode.collection.updateMany(
    {
      $or: distinct.map((r) => ({
        id: r.qrId,
        renderVersion: r.renderVersion,
        status: 'pending',
      })),
    },
    { $set: { status: 'ready', failureReason: null, renderedAt } },
  );
  if (marked.matchedCount === distinct.length) return firsts;
  const docs = await QrCode.collection
    .find<Pick<QrCodeRecord, 'id' | 'renderVersion' | 'status' | 'renderedAt'>>({
      id: { $in: distinct.map((r) => r.qrId) },
    })
    .toArray();
  return renders.map((r, i) => {
    const doc = docs.find((d) => d.id === r.qrId);
    return (
      (firsts[i] ?? false) &&
      doc?.renderVersion === r.renderVersion &&
      doc.status === 'ready' &&
      doc.renderedAt?.getTime() === renderedAt.getTime()
    );
  });
}

let lastMark = 0;
/** Now, but never the same millisecond twice in this process (the mark of one update). */
function uniqueNow(): Date {
  lastMark = Math.max(Date.now(), lastMark + 1);
  return new Date(lastMark);
}

/** What the store asks of the render pool (see `createRenderStore`). */
export interface RendersInFlight {
  readonly threads: number;
  readonly rendering: number;
  onRenderSettled(listener: () => void): void;
}

/**
 * Stores proven renders and marks their versions ready, the renders that end while a write is in
 * flight sharing the next one: two writes for a group of renders instead of two per render
 * (each write costs the embedded engine about a millisecond whatever it holds).
 *
 * Given the render pool, a finished render also waits for the others while every render thread
 * is still busy: those end within a render's time, and no thread is kept idle by the wait, since
 * a thread about to run out of work ends it. So the renders a thread had in hand are stored
 * together (on one core, the four in flight: a write pair every four codes rather than about
 * every 1.4), and a lone render is stored at once.
 */
export function createRenderStore(
  pool?: RendersInFlight,
): (render: FinishedRender) => Promise<StoredRender> {
  const write = groupCommit<FinishedRender, StoredRender>(async (renders) => {
    const createdAt = new Date();
    const docs = renders.map((r) => imageDocuments(r.qrId, r.renderVersion, r.images, createdAt));
    await insertImages(renders, docs);
    const marked = await markReady(renders);
    return renders.map((_, i) => ({ stored: docs[i] ?? [], marked: marked[i] ?? false }));
  });
  if (!pool) return write;
  let held: Array<{ render: FinishedRender; settle(out: Promise<StoredRender>): void }> = [];
  const allBusy = () => pool.rendering >= pool.threads;
  // Handed to the group commit in one turn, they share its next write.
  const release = () => {
    const group = held;
    held = [];
    for (const { render, settle } of group) settle(write(render));
  };
  // A render that failed stores nothing: the ones held are released once threads run short.
  pool.onRenderSettled(() => setImmediate(() => allBusy() || release()));
  return (render) =>
    new Promise<StoredRender>((resolve, reject) => {
      held.push({ render, settle: (out) => void out.then(resolve, reject) });
      if (!allBusy()) release();
    });
}
