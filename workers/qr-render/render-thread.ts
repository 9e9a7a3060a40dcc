import { parentPort, workerData } from 'node:worker_threads';
import { renderQr, type RenderInput } from './render-qr';
import type { VariantInput } from './render-variant';

type VariantModule = typeof import('./render-variant');
let variants: VariantModule | undefined;
/**
 * Loaded on the first variant: PDF, EPS and the raster proof of another size pull in pdfkit and
 * more, which a thread that only renders codes should not wait for when it starts.
 */
function variantModule(): VariantModule {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  variants ??= require('./render-variant') as VariantModule;
  return variants;
}

/** A render of a code's version, or a variant (another size, PDF, EPS) of a ready one. */
export type RenderWork =
  { kind: 'render'; input: RenderInput } | { kind: 'variant'; input: VariantInput };

export type RenderRequest = RenderWork & { id: number };

export type RenderReply =
  | {
      id: number;
      ok: true;
      kind: 'render';
      png: Uint8Array;
      svg: Uint8Array;
      logo?: Uint8Array | undefined;
    }
  | { id: number; ok: true; kind: 'variant'; bytes: Uint8Array }
  | { id: number; ok: false; name: string; message: string };

/** What a thread posts: a reply, or once, when its warm-up renders are done, that it is warm. */
export type ThreadMessage = RenderReply | { warm: true };

/**
 * Renders of the usual kind (a link, 512 px, plain, its proof decoded), made as the thread starts.
 * One render only compiles the encoder, the rasteriser and the decoder; V8 optimises them after a
 * few dozen (measured in a fresh process: about 40 ms CPU for the first render, 10 to 25 ms for
 * the next dozen, 1.3 ms from about the thirtieth on), so the first batch after a start paid about
 * 200 ms of compilation on each thread (issue 28: 3.3 ms a code of a cold batch of 60 on one
 * core). Thirty renders (QR_WARM_UP_RENDERS) cost about 210 ms of CPU once per thread (the single
 * one before them: 40 ms), off the worker's event loop, and a request arriving meanwhile goes
 * first; the worker reports itself started once they are done (`RenderPool.warm`), and under
 * `npm start` the API listens only then.
 */
export interface RenderThreadData {
  warmUpRenders: number;
}
const { warmUpRenders } = (workerData as RenderThreadData | null) ?? { warmUpRenders: 30 };

/** Requests being worked on; the warm-up renders only while there are none. */
let inFlight = 0;
let resumeWarmUp: (() => void) | undefined;
/** The warm-up render under way: a request that arrives meanwhile starts after it. */
let warmUpRender: Promise<unknown> = Promise.resolve();

async function warmUp(): Promise<void> {
  for (let i = 0; i < warmUpRenders; i += 1) {
    while (inFlight > 0) await new Promise<void>((resume) => (resumeWarmUp = resume));
    // Payloads of a dynamic code's length, each different, so the mask choice varies as it will.
    warmUpRender = renderQr({
      payload: `https://linkqr.invalid/s/warm${String(i).padStart(4, '0')}`,
      size: 512,
      foreground: { r: 0, g: 0, b: 0 },
      background: { r: 255, g: 255, b: 255 },
      verify: true,
    }).catch(() => undefined);
    await warmUpRender;
  }
}
void warmUp().then(() => parentPort?.postMessage({ warm: true } satisfies ThreadMessage));

function settled(): void {
  inFlight -= 1;
  if (inFlight > 0 || !resumeWarmUp) return;
  const resume = resumeWarmUp;
  resumeWarmUp = undefined;
  resume();
}

function work(request: RenderRequest): Promise<RenderReply> {
  const { id } = request;
  if (request.kind === 'variant') {
    return variantModule()
      .renderVariant(request.input)
      .then((bytes) => ({ id, ok: true, kind: 'variant', bytes }));
  }
  return renderQr(request.input).then(({ png, svg, logo }) => ({
    id,
    ok: true,
    kind: 'render',
    png,
    svg,
    logo,
  }));
}

/**
 * One render pool thread: renders its requests off the event loop that talks to Redis; a request
 * comes before the warm-up renders left (a worker restarted under load is not held up by them).
 */
parentPort?.on('message', (request: RenderRequest) => {
  inFlight += 1;
  warmUpRender
    .then(() => work(request))
    .then(
      (reply) => parentPort?.postMessage(reply),
      (err: unknown) => {
        const error = err instanceof Error ? err : new Error(String(err));
        const reply: RenderReply = {
          id: request.id,
          ok: false,
          name: error.name,
          message: error.message,
        };
        parentPort?.postMessage(reply);
      },
    )
    .finally(settled);
});
