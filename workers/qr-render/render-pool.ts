import path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { RenderInput, RenderOutput } from './render-qr';
import type { RenderReply, RenderRequest } from './render-thread';

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
  render(input: RenderInput): Promise<RenderOutput>;
  close(): Promise<void>;
}

/** Failures whose message was written for the QR code's owner; anything else is summarised. */
const OWN_ERRORS = new Set(['RenderError', 'UnreadableImageError']);
const UNEXPECTED = 'the image could not be rendered';

interface Task {
  id: number;
  input: RenderInput;
  resolve(output: RenderOutput): void;
  reject(err: Error): void;
}

interface Slot {
  worker: Worker;
  task: Task | undefined;
}

/**
 * Under tsx (tests, `npm run dev`) the thread must register the TypeScript loader itself;
 * the built worker runs the compiled `.js` file directly.
 */
function spawnThread(): Worker {
  const ext = path.extname(__filename);
  const entry = path.join(__dirname, `render-thread${ext}`);
  if (ext !== '.ts') return new Worker(entry);
  return new Worker(`require('tsx/cjs/api').register(); require(${JSON.stringify(entry)});`, {
    eval: true,
  });
}

/** A fixed set of threads, one render each at a time; requests beyond that wait in order. */
export function createRenderPool(threads: number): RenderPool {
  const waiting: Task[] = [];
  const slots: Slot[] = [];
  let nextId = 1;
  let closed = false;

  const dispatch = () => {
    for (const slot of slots) {
      if (slot.task || waiting.length === 0) continue;
      const task = waiting.shift() as Task;
      slot.task = task;
      const request: RenderRequest = { id: task.id, input: task.input };
      slot.worker.postMessage(request);
    }
  };

  const start = (): Slot => {
    const slot: Slot = { worker: spawnThread(), task: undefined };
    slot.worker.on('message', (reply: RenderReply) => {
      const task = slot.task;
      if (!task || task.id !== reply.id) return;
      slot.task = undefined;
      if (reply.ok) {
        task.resolve({ png: Buffer.from(reply.png), svg: Buffer.from(reply.svg) });
      } else {
        task.reject(new RenderFailure(OWN_ERRORS.has(reply.name) ? reply.message : UNEXPECTED));
      }
      dispatch();
    });
    const lost = (reason: string) => {
      const task = slot.task;
      slot.task = undefined;
      task?.reject(new RenderThreadLost(`render thread ${reason}`));
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

  return {
    threads,
    render(input) {
      if (closed) return Promise.reject(new RenderThreadLost('render pool is closed'));
      return new Promise<RenderOutput>((resolve, reject) => {
        waiting.push({ id: nextId++, input, resolve, reject });
        dispatch();
      });
    },
    async close() {
      closed = true;
      for (const task of waiting.splice(0)) task.reject(new RenderThreadLost('render pool closed'));
      const all = slots.splice(0);
      for (const slot of all) slot.task?.reject(new RenderThreadLost('render pool closed'));
      await Promise.all(all.map((slot) => slot.worker.terminate()));
    },
  };
}
