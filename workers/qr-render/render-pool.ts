import path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { RenderInput, RenderOutput } from './render-qr';
import type {
  RenderReply,
  RenderRequest,
  RenderThreadData,
  RenderWork,
  ThreadMessage,
} from './render-thread';
import type { VariantInput } from './render-variant';

/** The render itself failed: the same input would fail again, so the job must not retry. */
export class RenderFailure extends Error {
  override name = 'RenderFailure';
}

/** The thread died under the render (out of memory, a crash): worth another attempt. */
export class RenderThreadLost extends Error {
  override name = 'RenderThreadLost';
}

export interface RenderPool {
  readonly threads: number;
  /** Renders (not variants) asked for and not yet answered: waiting or being drawn. */
  readonly rendering: number;
  /** Calls `listener` after each render is answered, drawn or failed. */
  onRenderSettled(listener: () => void): void;
  /** Settles once each thread started with the pool has done its warm-up renders (or is gone). */
  readonly warm: Promise<void>;
  render(input: RenderInput): Promise<RenderOutput>;
  /** A variant of a ready code (another PNG size, PDF, EPS), on the same threads. */
  variant(input: VariantInput): Promise<Buffer>;
  close(): Promise<void>;
}

/** Failures whose message was written for the QR code's owner; anything else is summarised. */
const OWN_ERRORS = new Set(['RenderError', 'UnreadableImageError']);
const UNEXPECTED = 'the image could not be rendered';

type Work = Extract<RenderReply, { ok: true }>;

interface Task {
  id: number;
  request: RenderWork;
  resolve(reply: Work): void;
  reject(err: Error): void;
}

interface Slot {
  worker: Worker;
  tasks: Map<number, Task>;
  /** Settles this thread's part of `RenderPool.warm`. */
  warmed(): void;
}

/**
 * Under tsx (tests, `npm run dev`) the thread must register the TypeScript loader itself;
 * the built worker runs the compiled `.js` file directly.
 */
function spawnThread(workerData: RenderThreadData): Worker {
  const ext = path.extname(__filename);
  const entry = path.join(__dirname, `render-thread${ext}`);
  if (ext !== '.ts') return new Worker(entry, { workerData });
  return new Worker(`require('tsx/cjs/api').register(); require(${JSON.stringify(entry)});`, {
    eval: true,
    workerData,
  });
}

/**
 * A fixed set of threads, each working on up to `perThread` renders at once; requests beyond wait
 * in order. A render alternates JavaScript (layout, the decoder) with waits on sharp, which runs on
 * libuv's threads, so a thread with two renders in hand fills one's waits with the other's work
 * (measured on 2 cores: the pool's CPU use rose from 1.5 to 1.7 cores, renders/s by about 25 %).
 */
export function createRenderPool(
  threads: number,
  perThread = 1,
  /** Renders each thread makes as it starts (see render-thread.ts); QR_WARM_UP_RENDERS. */
  warmUpRenders = 30,
): RenderPool {
  const waiting: Task[] = [];
  const slots: Slot[] = [];
  const warming: Promise<void>[] = [];
  let started = false;
  let nextId = 1;
  let closed = false;
  let rendering = 0;
  const settledListeners: Array<() => void> = [];

  const dispatch = () => {
    for (let round = 0; round < perThread; round += 1) {
      for (const slot of slots) {
        if (slot.tasks.size > round || waiting.length === 0) continue;
        const task = waiting.shift() as Task;
        slot.tasks.set(task.id, task);
        const request: RenderRequest = { id: task.id, ...task.request };
        slot.worker.postMessage(request);
      }
    }
  };

  const start = (): Slot => {
    let warmed = () => {};
    const warm = new Promise<void>((resolve) => (warmed = resolve));
    const slot: Slot = { worker: spawnThread({ warmUpRenders }), tasks: new Map(), warmed };
    // A thread started later (after a crash) warms up too, but nothing waits for it.
    if (!started) warming.push(warm);
    slot.worker.on('message', (message: ThreadMessage) => {
      if ('warm' in message) {
        warmed();
        return;
      }
      const reply = message;
      const task = slot.tasks.get(reply.id);
      if (!task) return;
      slot.tasks.delete(reply.id);
      if (reply.ok) {
        task.resolve(reply);
      } else {
        task.reject(new RenderFailure(OWN_ERRORS.has(reply.name) ? reply.message : UNEXPECTED));
      }
      dispatch();
    });
    const lost = (reason: string) => {
      warmed();
      for (const task of slot.tasks.values()) {
        task.reject(new RenderThreadLost(`render thread ${reason}`));
      }
      slot.tasks.clear();
      const index = slots.indexOf(slot);
      if (index >= 0) slots.splice(index, 1);
      if (!closed) {
        slots.push(start());
        dispatch();
      }
    };
    slot.worker.on('error', (err) => lost(`failed: ${err.message}`));
    slot.worker.on('exit', (code) => {
      if (slots.includes(slot)) lost(`exited with code ${code}`);
    });
    return slot;
  };

  for (let i = 0; i < threads; i += 1) slots.push(start());
  started = true;
  const warm = Promise.all(warming).then(() => undefined);

  const run = (request: RenderWork): Promise<Work> => {
    if (closed) return Promise.reject(new RenderThreadLost('render pool is closed'));
    return new Promise<Work>((resolve, reject) => {
      waiting.push({ id: nextId++, request, resolve, reject });
      dispatch();
    });
  };

  const settled = () => {
    rendering -= 1;
    for (const listener of settledListeners) listener();
  };

  return {
    threads,
    warm,
    get rendering() {
      return rendering;
    },
    onRenderSettled(listener) {
      settledListeners.push(listener);
    },
    async render(input) {
      rendering += 1;
      let reply: Work;
      try {
        reply = await run({ kind: 'render', input });
      } finally {
        settled();
      }
      if (reply.kind !== 'render') throw new Error('render thread answered another request');
      return {
        png: Buffer.from(reply.png),
        svg: Buffer.from(reply.svg),
        logo: reply.logo ? Buffer.from(reply.logo) : undefined,
      };
    },
    async variant(input) {
      const reply = await run({ kind: 'variant', input });
      if (reply.kind !== 'variant') throw new Error('render thread answered another request');
      return Buffer.from(reply.bytes);
    },
    async close() {
      closed = true;
      for (const task of waiting.splice(0)) task.reject(new RenderThreadLost('render pool closed'));
      const all = slots.splice(0);
      for (const slot of all) {
        // Closed while warming up: whoever waits for the warm-up stops waiting.
        slot.warmed();
        for (const task of slot.tasks.values())
          task.reject(new RenderThreadLost('render pool closed'));
      }
      await Promise.all(all.map((slot) => slot.worker.terminate()));
    },
  };
}
